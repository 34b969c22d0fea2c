import { test } from 'node:test';
import assert from 'node:assert/strict';
import { growthLayout, repeatLines, signed, topLines } from '../../ui/src/usage/growth.js';

const turn = (n, tokens, delta, added, extra = {}) => ({
  turn: n, firstEntryId: `u${n}`, lastEntryId: `a${n}`, lastEntryIndex: 10 * n, entries: 3, tokens, delta, added,
  compactionId: null, pruned: 0, contextEdits: 0, ...extra,
});
const report = {
  dialect: 'pi', ruleSet: null, leafId: 'a3', contextTokens: 2000,
  turns: [
    turn(0, 1000, 1000, 1000),
    turn(1, 4000, 3000, 3000, { pruned: 2 }),
    turn(2, 1500, -2500, 500, { compactionId: 'c2' }),
    turn(3, 2000, 500, 500, { contextEdits: 1, pruned: 1 }),
  ],
  top: [
    { entryId: 't1', entryIndex: 12, role: 'toolResult', tool: 'read', turn: 1, tokens: 1800 },
    { entryId: 'c2', entryIndex: 20, role: 'compactionSummary', tool: null, turn: null, tokens: 300 },
  ],
  repeatedReads: [{ path: 'src/a.rs', reads: 3, tokens: 900, repeatTokens: 600, entryIds: ['t1', 't5', 't9'] }],
};
const box = { width: 308, height: 108, pad: 4 };

test('the growth chart: a point per turn, spread over the width, the peak at the top', () => {
  const { points, yMax } = growthLayout(report, box);
  assert.equal(yMax, 4000);
  assert.deepEqual(points.map((p) => p.x), [4, 104, 204, 304]);
  // 100 px of height for 4,000 tokens: 1,000 → 25 px above the bottom pad.
  assert.deepEqual(points.map((p) => p.y), [79, 4, 66.5, 54]);
  assert.deepEqual(points.map((p) => p.entryId), ['a0', 'a1', 'a2', 'a3']);
  assert.equal(points[2].title, 'turn 2: context 1,500 tokens (-2,500), this turn added 500');
});

test('the growth chart: compactions jump to their entry, prunes and context edits to the turn', () => {
  const { marks } = growthLayout(report, box);
  assert.deepEqual(marks.map((m) => [m.kind, m.x, m.entryId]), [
    ['pruned', 104, 'a1'], ['compaction', 204, 'c2'], ['pruned', 304, 'a3'],
  ]);
  assert.equal(marks[2].title, 'turn 3: 1 pruned, 1 context edits');
});

test('the growth chart: one turn sits in the middle, an empty path has no points', () => {
  const one = growthLayout({ ...report, turns: [turn(0, 0, 0, 0)] }, box);
  assert.deepEqual(one.points.map((p) => [p.x, p.y]), [[154, 104]]);
  assert.deepEqual(growthLayout({ ...report, turns: [] }, box), { points: [], marks: [], yMax: 0 });
});

test('the lists: largest messages and repeated reads, jumping to the last read', () => {
  assert.deepEqual(topLines(report), [
    { entryId: 't1', text: '1,800 tokens · toolResult read · turn 1' },
    { entryId: 'c2', text: '300 tokens · compactionSummary' },
  ]);
  assert.deepEqual(repeatLines(report), [{ entryId: 't9', text: 'src/a.rs: 3 reads, 900 tokens, 600 in the repeats' }]);
  assert.deepEqual([signed(1200), signed(-30000), signed(0)], ['+1,200', '-30,000', '±0']);
});
