// What the search screen shows of a `search_sessions` answer, as pure functions (node --test):
// hits grouped by session in rank order, a snippet cut into plain and matched parts, a hit's
// state for its session's leaf in words.

/** @typedef {import('../generated/reports').SearchHit} SearchHit */

/**
 * Hits grouped by file, in the order of each file's best hit; within a group, rank order.
 * @param {SearchHit[]} hits
 * @returns {{ file: string, hits: SearchHit[] }[]}
 */
export function groupHits(hits) {
  const groups = new Map();
  for (const hit of hits) {
    let group = groups.get(hit.file);
    if (!group) {
      group = { file: hit.file, hits: [] };
      groups.set(hit.file, group);
    }
    group.hits.push(hit);
  }
  return [...groups.values()];
}

/**
 * `text` cut at the `[start, end)` ranges (UTF-16 offsets, as JS strings count) into
 * `{ text, match }` parts, for the view to set as text (never HTML). Ranges out of order,
 * overlapping or out of bounds are clamped and merged, so any answer draws.
 * @param {string} text
 * @param {[number, number][]} ranges
 * @returns {{ text: string, match: boolean }[]}
 */
export function snippetParts(text, ranges = []) {
  const sorted = ranges
    .map(([a, b]) => [Math.max(0, Math.min(a, text.length)), Math.max(0, Math.min(b, text.length))])
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  const parts = [];
  let at = 0;
  for (const [a, b] of sorted) {
    if (b <= at) continue;
    const from = Math.max(a, at);
    if (from > at) parts.push({ text: text.slice(at, from), match: false });
    parts.push({ text: text.slice(from, b), match: true });
    at = b;
  }
  if (at < text.length || parts.length === 0) parts.push({ text: text.slice(at), match: false });
  return parts;
}

/** What each state of a hit means for its session's current leaf. */
const STATE_WORDS = {
  context: ['in context', 'The model sees this entry from the session\'s current leaf'],
  summarized: ['summarized', 'A compaction replaced this entry with its summary'],
  pruned: ['pruned', 'In the context, with its tool output pruned'],
  offPath: ['other branch', 'On a branch the current leaf does not follow'],
  branchSummarized: ['branch summarized', 'On an abandoned branch that a branch summary on the leaf\'s path stands for'],
  notSent: ['not sent', 'On the leaf\'s path but not sent to the model (a label, an excluded message, an older compaction)'],
  unknown: ['state unknown', 'The session could not be read to tell'],
};

/**
 * A hit's state as `{ label, help, className }`; `summarizedBy` names the compaction.
 * @param {string} state
 * @param {string | null | undefined} summarizedBy
 */
export function stateText(state, summarizedBy) {
  const [label, help] = STATE_WORDS[state] ?? [state, ''];
  const by = summarizedBy ? ` (${state === 'branchSummarized' ? 'branch summary' : 'compaction'} ${summarizedBy})` : '';
  return { label, help: help + by, className: `hit-state hit-${state}` };
}

/**
 * The line beside the query: how many hits in how many sessions, and what the index holds
 * (`files` read by the update that came before the answer, `totalFiles` held).
 * @param {{ hits: SearchHit[], indexed: import('../generated/reports').IndexedReport }} report
 */
export function resultLine(report) {
  const sessions = new Set(report.hits.map((h) => h.file)).size;
  const hits = report.hits.length;
  const found = hits === 0 ? 'No hit' : `${hits} hit${hits === 1 ? '' : 's'} in ${sessions} session${sessions === 1 ? '' : 's'}`;
  const { files, bytes, ms, totalFiles, busy } = report.indexed;
  const held = `${totalFiles} session${totalFiles === 1 ? '' : 's'} indexed`;
  if (busy) return `${found} · ${held} (another contextree is updating the index: answered from its last state)`;
  if (files === 0) return `${found} · ${held}`;
  return `${found} · ${held}, ${files} brought up to date (${(bytes / 1e6).toFixed(1)} MB, ${ms} ms)`;
}

/**
 * The next hit in `order` (hit keys, top to bottom) from `from`, `step` (±1) away, clamped;
 * the first when nothing is selected.
 * @param {string[]} order
 * @param {string | null} from
 * @param {number} step
 */
export function stepHit(order, from, step) {
  if (order.length === 0) return null;
  const at = order.indexOf(from);
  if (at < 0) return order[0];
  return order[Math.max(0, Math.min(order.length - 1, at + step))];
}
