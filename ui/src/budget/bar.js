// The budget bar's geometry and wording: positions in percent of the bar, texts. Pure (node --test).

import { formatCount, formatTokens } from '../entries/format.js';

const clampPct = (x) => Math.max(0, Math.min(100, x));

/**
 * Geometry of a `budget` result (`{ window, used, reserve, threshold, keepRecentFrom }`): the bar
 * spans the window, or the used tokens when they overflow it. Every value is a percentage of
 * the bar's width: `used` (fill), `summarizable` (the part before the keep-recent marker),
 * `reserveStart` / `windowEnd` (the reserve zone), `threshold` (`null`: no auto-compaction),
 * `keepRecent` (the marker); `overflow` is true when the context exceeds the window.
 * @param {Pick<import('../generated/reports').BudgetReport, 'window' | 'used' | 'reserve' | 'threshold' | 'keepRecentFrom'>} budget
 */
export function barGeometry({ window, used, reserve, threshold, keepRecentFrom }) {
  const scale = Math.max(window, used, 1);
  const pct = (x) => clampPct((x / scale) * 100);
  return {
    used: pct(used),
    summarizable: pct(Math.min(keepRecentFrom, used)),
    keepRecent: pct(Math.min(keepRecentFrom, used)),
    reserveStart: pct(Math.max(0, window - reserve)),
    windowEnd: pct(window),
    threshold: threshold == null ? null : pct(threshold),
    overflow: used > window,
  };
}

/** Where the window came from, for people. */
const WINDOW_SOURCES = {
  override: 'window set here',
  model: 'window of',
  default: 'unknown model: default window',
};

/**
 * Texts of the bar: `amount` ("131,140 / 200,000"), `percent`, `window` (its source),
 * `detail` (keep-recent, threshold, reserve), `alert` ('' when the agent would not compact).
 * @param {import('../generated/reports').BudgetReport} b
 */
export function budgetTexts(b) {
  const percent = b.window > 0 ? Math.round((b.used / b.window) * 100) : 0;
  const source = WINDOW_SOURCES[b.windowSource] ?? b.windowSource;
  const window = b.windowSource === 'model' && b.model ? `${source} ${b.model}` : source;
  const kept = b.used - Math.min(b.keepRecentFrom, b.used);
  const parts = [
    `kept recent ${formatTokens(kept)} │ older ${formatTokens(b.used - kept)}`,
    b.threshold == null ? 'no auto-compaction' : `threshold ${formatCount(b.threshold)}`,
    `reserve ${formatCount(b.reserve)}`,
  ];
  let alert = '';
  if (b.wouldCompact) alert = `⚠ would auto-compact (${b.decision})`;
  else if (b.overThreshold) alert = '⚠ over the threshold';
  // D24: a misleading agent number stays the agent's, with the estimate beside it.
  const agent = b.misleading ? "agent's " : '';
  const beside = b.misleading ? ` (estimate ${formatCount(b.misleading.estimate)} ⚑)` : '';
  return {
    amount: `${b.unknownAfterCompaction ? '? ' : ''}${agent}${formatCount(b.used)}${beside} / ${formatCount(b.window)}`,
    note: b.misleading ? b.misleading.note : '',
    percent: `${percent}%`,
    window,
    detail: parts.join('   '),
    alert,
    reason: b.reason ?? '',
  };
}

/** A window typed by the user: a positive integer (commas and `k` allowed), else `null`. */
export function parseWindow(text) {
  const t = String(text).trim().toLowerCase().replaceAll(',', '').replaceAll('_', '');
  const m = /^(\d+(?:\.\d+)?)(k|m)?$/.exec(t);
  if (!m) return null;
  const n = Math.round(Number(m[1]) * (m[2] === 'k' ? 1000 : m[2] === 'm' ? 1_000_000 : 1));
  return n > 0 && Number.isSafeInteger(n) ? n : null;
}
