// The side-by-side dialog's text and rows, from the read layer's `CompareReport` (the aligning
// is the report's: `contextree compare`). Pure, no DOM.

import { formatCount } from '../entries/format.js';
import { stateLabel } from '../tree/format.js';

/** @typedef {import('../generated/reports').CompareReport} CompareReport */
/** @typedef {import('../generated/reports').CompareRow} CompareRow */
/** @typedef {import('../generated/reports').CompareCell} CompareCell */

const messages = (count) => `${formatCount(count)} ${count === 1 ? 'message' : 'messages'}`;
const signed = (n) => (n > 0 ? `+${formatCount(n)}` : n < 0 ? `−${formatCount(-n)}` : '±0');

/**
 * The headline: `A a3: 42 tokens · B b4: 53 tokens (B − A +11) · common ancestor a1 · shared 2
 * messages (30 tokens) · they diverge at message 3 · only in A: 2 messages (12 tokens) · only
 * in B: 3 messages (23 tokens)`. Tokens are the LLM messages' estimate, as the report's.
 * @param {CompareReport} report
 */
export function compareSummary(report) {
  const { a, b } = report;
  const parts = [
    `A ${a.leafId ?? '(none)'}: ${formatCount(a.llmTokens)} tokens · B ${b.leafId ?? '(none)'}: ${formatCount(b.llmTokens)} tokens (B − A ${signed(report.difference.llmTokens)})`,
    `common ancestor ${report.commonAncestorId ?? 'none (different roots)'}`,
    `shared ${messages(report.sharedCount)} (${formatCount(report.sharedTokens)} tokens)`,
    report.divergeAt == null ? 'the same context' : `they diverge at message ${report.divergeAt + 1}`,
    `only in A: ${messages(a.onlyCount)} (${formatCount(a.onlyTokens)} tokens)`,
    `only in B: ${messages(b.onlyCount)} (${formatCount(b.onlyTokens)} tokens)`,
  ];
  return parts.join(' · ');
}

/**
 * The rule set and what each side's request depends on that the file cannot tell (the
 * context panel's list), one line each: `rules pi@1.6 (why)`, `A: not reproducible — …`.
 * @param {CompareReport} report
 * @returns {string[]}
 */
export function compareNotes(report) {
  const lines = [`rules ${report.ruleSet.name} (${report.ruleSet.why})`];
  /** @type {Array<[string, import('../generated/reports').CompareSide]>} */
  const sides = [['A', report.a], ['B', report.b]];
  for (const [name, side] of sides) {
    const notes = side.notReproducible ?? [];
    if (notes.length) lines.push(`${name}: not reproducible from the file — ${notes.map((n) => n.kind).join(', ')}`);
  }
  return lines;
}

/**
 * The rows to draw, a long run of same rows folded: the report's rows and `{ op: 'gap',
 * count, tokens }` for the same rows beyond `keep` at each edge of a run (none kept at the
 * ends of the list), as `contextree compare` prints them.
 * @param {CompareReport} report
 * @returns {Array<CompareRow | { op: 'gap', count: number, tokens: number }>}
 */
export function compareRows(report, keep = 2) {
  const rows = report.rows;
  /** @type {Array<CompareRow | { op: 'gap', count: number, tokens: number }>} */
  const out = [];
  let k = 0;
  while (k < rows.length) {
    if (rows[k].op !== 'same') {
      out.push(rows[k]);
      k++;
      continue;
    }
    let end = k;
    while (end < rows.length && rows[end].op === 'same') end++;
    const head = k === 0 ? 0 : keep;
    const tail = end === rows.length ? 0 : keep;
    if (end - k > head + tail + 1) {
      const folded = rows.slice(k + head, end - tail);
      const tokens = folded.reduce((sum, r) => sum + (r.a?.message?.llmTokens ?? 0), 0);
      out.push(...rows.slice(k, k + head), { op: /** @type {const} */ ('gap'), count: folded.length, tokens }, ...rows.slice(end - tail, end));
    } else {
      out.push(...rows.slice(k, end));
    }
    k = end;
  }
  return out;
}

/** `… 5 shared messages (1,200 tokens)`: a folded run. */
export function gapText({ count, tokens }) {
  return `… ${formatCount(count)} shared ${count === 1 ? 'message' : 'messages'} (${formatCount(tokens)} tokens)`;
}

/**
 * What one side shows at a row: `null` when the side has nothing there; else the entry, its
 * state (`note`, empty when the role already says it: kept, the compaction, a branch summary),
 * and for a sent message its role, LLM tokens, the first line of its text and the text.
 * @param {CompareCell | null} cell
 */
export function cellParts(cell) {
  if (!cell) return null;
  const plain = cell.state === 'kept' || cell.state === 'compaction' || cell.state === 'branch-summary';
  const m = cell.message;
  const text = String(m?.text ?? '');
  return {
    entryId: cell.entryId ?? '',
    sent: !!m,
    role: m?.role ?? null,
    tokens: m?.llmTokens ?? 0,
    note: m && plain ? '' : stateLabel(cell.state),
    preview: text.split('\n').find((line) => line.trim() !== '') ?? '',
    text,
  };
}
