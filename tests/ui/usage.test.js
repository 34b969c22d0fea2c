import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chartPoints, dollars, usageRows } from '../../ui/src/usage/format.js';

const t = (records, cost) => ({ records, input: 1000 * records, output: 10, cacheRead: 0, cacheWrite: 5, totalTokens: 0, cost });
const report = {
  totals: t(3, 0.0123456),
  byKind: { replies: t(2, 0.01), sideCalls: t(1, 0.0023456) },
  byModel: [{ model: 'anthropic/claude-sonnet-4-5', ...t(3, 0.0123456) }],
  branches: [{ leafId: 'a9', pathLength: 12, ...t(2, 0.01) }],
  records: [
    { entryId: 'a1', index: 2, kind: 'assistant', contextTokens: 5000 },
    { entryId: 'w1', index: 3, kind: 'sideCall', contextTokens: null },
    { entryId: 'a2', index: 7, kind: 'assistant', contextTokens: 9000 },
  ],
  compactions: [{ entryId: 'c1', index: 5, tokensBefore: 8000 }],
};

test('the usage table: session, kinds, models, branches', () => {
  const rows = usageRows(report);
  assert.deepEqual(rows.map((r) => r.name), [
    'session', '  replies', '  side calls (cache warming, titles)', 'model anthropic/claude-sonnet-4-5', 'branch to a9 (12 entries)',
  ]);
  assert.equal(rows[0].cost, '$0.0123');
  assert.equal(rows[0].input, '3,000');
  assert.equal(dollars(undefined), '$0.0000');
  assert.equal(dollars(1234.5), '$1,234.5000');
});

test('the chart: replies that report a context size, compactions as marks', () => {
  const c = chartPoints(report);
  assert.deepEqual(c.points, [{ x: 2, y: 5000, entryId: 'a1' }, { x: 7, y: 9000, entryId: 'a2' }]);
  assert.deepEqual(c.marks, [{ x: 5, entryId: 'c1' }]);
  assert.equal(c.xMax, 7);
  assert.equal(c.yMax, 9000);
  assert.deepEqual(chartPoints({ records: [], compactions: [] }), { points: [], marks: [], xMax: 0, yMax: 0 });
});
