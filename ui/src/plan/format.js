// Pure mapping of a compaction preview (a `compactionPreview` result) to what the PLAN panel
// and the tree show. No DOM.

import { formatCount } from '../entries/format.js';

/** The dashed-outline classes of the rows a plan would change, by role in the plan. */
export const PLAN_CLASSES = {
  summarized: 'plan-summarized',
  turnPrefix: 'plan-turn-prefix',
  firstKept: 'plan-first-kept',
};

/**
 * `Map<entryId, className>` for the tree: the rows the history summary covers, the split turn's
 * prefix, and the first kept entry (the cut). Empty for no plan or nothing to compact.
 * @param {import('../generated/reports').PlanReport} plan
 */
export function planRowClasses(plan) {
  const map = new Map();
  // `=== true` narrows the report to its plan half (plain truthiness does not, without strict).
  if (!plan || plan.nothingToCompact === true) return map;
  for (const id of plan.messagesToSummarizeIds ?? []) map.set(id, PLAN_CLASSES.summarized);
  for (const id of plan.turnPrefixIds ?? []) map.set(id, PLAN_CLASSES.turnPrefix);
  if (plan.firstKeptEntryId) map.set(plan.firstKeptEntryId, PLAN_CLASSES.firstKept);
  return map;
}

/**
 * The panel's lines, in order: `[{ key, text }]` (`key` names the line for styling and tests).
 * @param {import('../generated/reports').PlanReport} plan
 */
export function planLines(plan) {
  const lines = [{ key: 'leaf', text: `leaf ${plan.leafId ?? '(empty session)'} · ${plan.dialect}` }];
  if (plan.nothingToCompact === true) {
    lines.push({ key: 'nothing', text: `nothing to compact: ${plan.reason ?? ''}` });
    lines.push({ key: 'tokens', text: `tokens before ${formatCount(plan.tokensBefore)}` });
  } else {
    lines.push({ key: 'cut', text: `cut point: first kept entry ${plan.firstKeptEntryId}` });
    if (plan.isSplitTurn) {
      lines.push({
        key: 'split',
        text: `split turn: the cut falls inside a turn; its first ${plan.turnPrefixIds.length} `
          + `${plan.turnPrefixIds.length === 1 ? 'entry is' : 'entries are'} summarized separately`,
      });
    }
    lines.push({
      key: 'tokens',
      text: `tokens before ${formatCount(plan.tokensBefore)} → after ≤ ${formatCount(plan.preview.estimatedTokensAfter)}`
        + ` (kept ${formatCount(plan.preview.keptTokens)} + summary ${formatCount(plan.preview.summaryBudget)})`,
    });
    lines.push({
      key: 'counts',
      text: `summarized ${plan.messagesToSummarizeIds.length} · turn prefix ${plan.turnPrefixIds.length}`
        + ` · kept ${plan.recentMessagesIds.length}${plan.droppedIds.length ? ` · dropped ${plan.droppedIds.length}` : ''}`
        + ` · keepRecentTokens ${formatCount(plan.keepRecentTokensUsed)}`,
    });
    if (plan.historyLiteral != null) {
      lines.push({ key: 'literal', text: `history: no call, the literal text "${plan.historyLiteral}"` });
    }
    if (plan.promptPack) lines.push({ key: 'pack', text: `prompts: ${plan.promptPack}` });
    if (plan.cost) lines.push(...costLines(plan.cost));
  }
  for (const w of plan.warnings ?? []) lines.push({ key: 'warning', text: `⚠ ${w}` });
  return lines;
}

/** Dollars as the cost lines show them: `$0.4350`, or `unknown` for a missing price. */
export function dollars(v) {
  return v == null ? 'unknown' : `$${v.toFixed(4)}`;
}

/** A model and where its prices come from: `anthropic/claude-opus-4-5 (built-in table of 2025-11)`. */
function priced(model, prices) {
  if (!model) return 'unknown model';
  return prices ? `${model} (${prices.detail})` : `${model} (no price known)`;
}

/**
 * The cost lines of a plan (`plan.cost`): what compacting now costs once, what it saves on
 * each later turn, and when it pays off. Keys: `cost-once`, `cost-saving`, `cost-payoff`,
 * `cost-prices`.
 * @param {import('../generated/reports').CostReport} cost
 */
export function costLines(cost) {
  const turns = (n) => (n == null ? 'never' : `after ${formatCount(n)} ${n === 1 ? 'turn' : 'turns'}`);
  return [
    {
      key: 'cost-once',
      text: `cost once ${dollars(cost.oneOffCost)}: summarizer ${formatCount(cost.summarizerInputTokens)} in ${dollars(cost.summarizerInputCost)}`
        + ` + ≤ ${formatCount(cost.summarizerOutputTokens)} out ${dollars(cost.summarizerOutputCost)}`
        + ` + cache rewrite of ${formatCount(cost.tokensAfter)} ${dollars(cost.cacheRewriteCost)}`,
    },
    {
      key: 'cost-saving',
      text: `saves per later turn ${dollars(cost.savingPerCachedTurn)} from the cache, ${dollars(cost.savingPerUncachedTurn)} without`
        + ` (${formatCount(cost.tokensBefore)} → ${formatCount(cost.tokensAfter)} tokens)`,
    },
    { key: 'cost-payoff', text: `pays off ${turns(cost.paysOffAfterCachedTurns)} from the cache, ${turns(cost.paysOffAfterUncachedTurns)} without` },
    {
      key: 'cost-prices',
      text: `prices: session ${priced(cost.sessionModel, cost.sessionPrices)} · summary ${priced(cost.summaryModel, cost.summaryPrices)}`,
    },
  ];
}

const KIND_LABELS = { history: 'history summary', turnPrefix: 'turn-prefix summary', short: 'short summary' };

/**
 * The heading of call `i` (0-based); a call without `maxTokens` (pi 1.6 sends none) says so.
 * @param {import('../generated/reports').CallView} call
 * @param {number} i
 */
export function callTitle(call, i) {
  const reasoning = call.reasoning ? ` · reasoning ${call.reasoning}` : '';
  const cap = call.maxTokens == null ? 'no maxTokens sent' : `maxTokens ${formatCount(call.maxTokens)}`;
  return `call ${i + 1}: ${KIND_LABELS[call.kind] ?? call.kind} · ${cap}${reasoning}`;
}

/** One request's line: `u1 · Rename parseHeader… — keep: parseHeader, src/parser/read.rs`. */
export function requestText(req) {
  const marks = req.terms.map((t) => (t.found === true ? `✓ ${t.text}` : t.found === false ? `✗ ${t.text}` : t.text));
  const terms = marks.length ? ` — ${marks.join(', ')}` : ' — nothing to check';
  return `${req.mayBeLost ? '⚠ may be lost · ' : ''}${req.entryId} · ${req.preview}${terms}`;
}

/**
 * The instructions that ask a summary to keep the terms of `requests` (each term once), or
 * `''` when there are none: `Keep these exactly: `src/a.rs`, `parseHeader`.`
 */
export function keepInstructions(requests) {
  const seen = new Set();
  for (const r of requests) for (const t of r.terms) seen.add(t.text);
  if (seen.size === 0) return '';
  return `Keep these exactly as the user wrote them: ${[...seen].map((t) => `\`${t}\``).join(', ')}.`;
}
