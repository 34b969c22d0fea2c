// The growth chart's pure parts (the usage dialog, under the recorded usage): where each turn of
// the shown leaf's path goes on the chart, which turns carry a mark, and the lines of the
// largest-messages and repeated-reads lists. From a `weightReport` result (`contextree weight`).

import { formatCount } from '../entries/format.js';

/**
 * The chart in a `width` × `height` box with `pad` pixels kept free on every side: one point per
 * turn (`x` by turn number, `y` by the context after it, 0 at the bottom), each with the entry a
 * click jumps to (the turn's last entry, whose context it is), and the marks: `compaction` for a
 * turn with a compaction entry (jumping to that entry), `pruned` for one that pruned tool
 * results or, in pi, edited the context (jumping to the turn's last entry). The y scale is the
 * largest context, so a compaction's drop shows against the peak before it.
 * @param {import('../generated/reports').WeightReport} report
 * @param {{ width: number, height: number, pad: number }} box
 */
export function growthLayout(report, { width, height, pad }) {
  const turns = report.turns;
  const yMax = turns.reduce((m, t) => Math.max(m, t.tokens), 0);
  // One turn sits in the middle rather than on the left edge.
  const x = (i) => (turns.length < 2 ? width / 2 : pad + (i / (turns.length - 1)) * (width - 2 * pad));
  const y = (v) => height - pad - (yMax > 0 ? v / yMax : 0) * (height - 2 * pad);
  const points = turns.map((t, i) => ({
    x: x(i),
    y: y(t.tokens),
    turn: t.turn,
    tokens: t.tokens,
    entryId: t.lastEntryId,
    title: `turn ${t.turn}: context ${formatCount(t.tokens)} tokens (${signed(t.delta)}), this turn added ${formatCount(t.added)}`,
  }));
  const marks = [];
  turns.forEach((t, i) => {
    if (t.compactionId) marks.push({ x: x(i), kind: 'compaction', entryId: t.compactionId, title: `turn ${t.turn}: compaction ${t.compactionId}` });
    const edits = t.pruned + t.contextEdits;
    if (edits > 0) {
      const what = [t.pruned ? `${formatCount(t.pruned)} pruned` : null, t.contextEdits ? `${formatCount(t.contextEdits)} context edits` : null].filter(Boolean).join(', ');
      marks.push({ x: x(i), kind: 'pruned', entryId: t.lastEntryId, title: `turn ${t.turn}: ${what}` });
    }
  });
  return { points, marks, yMax };
}

/** `+1,200` / `-30,000` / `±0`: a turn's change of the context. */
export function signed(n) {
  if (n > 0) return `+${formatCount(n)}`;
  if (n < 0) return `-${formatCount(-n)}`;
  return '±0';
}

/**
 * The largest messages still in the context, one line each: `{ entryId, text }`.
 * @param {import('../generated/reports').WeightReport} report
 */
export function topLines(report) {
  return report.top.map((e) => ({
    entryId: e.entryId,
    text: `${formatCount(e.tokens)} tokens · ${e.tool ? `${e.role} ${e.tool}` : e.role}${e.turn == null ? '' : ` · turn ${e.turn}`}`,
  }));
}

/**
 * The files read more than once, one line each: `{ entryId, text }`, jumping to the last read
 * (the one a repeat could have been replaced by).
 * @param {import('../generated/reports').WeightReport} report
 */
export function repeatLines(report) {
  return report.repeatedReads.map((r) => ({
    entryId: r.entryIds.length ? r.entryIds[r.entryIds.length - 1] : null,
    text: `${r.path}: ${formatCount(r.reads)} reads, ${formatCount(r.tokens)} tokens, ${formatCount(r.repeatTokens)} in the repeats`,
  }));
}
