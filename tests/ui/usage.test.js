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

test('the subagents: each agent, the session and the branches that started some with them', () => {
  const sub = (file, depth, status, counted, totals, recorded) => ({
    file, agentId: file, kind: file.startsWith('__advisor') ? 'advisor' : 'subagent', agent: file.startsWith('__') ? null : 'task',
    role: null, model: 'p/m', depth, status, error: null, spawnedBy: null, totals, recorded, counted,
  });
  const none = t(0, 0);
  const withSubs = {
    ...report,
    subagents: [
      sub('Anna.jsonl', 0, 'read', 'file', t(2, 1.5), null),
      sub('Anna/Anna.Eve.jsonl', 1, 'read', 'file', t(1, 0.25), null),
      sub('Ghost.jsonl', 0, 'missing', 'recorded', none, t(1, 0.75)),
      sub('Cleo.jsonl', 0, 'missing', 'nothing', none, null),
      sub('__advisor.jsonl', 0, 'read', 'file', t(1, 0.125), null),
    ],
    subagentTotals: t(5, 2.625),
    withSubagents: t(8, 2.6373456),
    branchSubagents: [{ leafId: 'a9', subagents: t(4, 2.5), withSubagents: t(6, 2.51) }, { leafId: 'b1', subagents: none, withSubagents: t(1, 0.1) }],
  };
  const rows = usageRows(withSubs).slice(5);
  assert.deepEqual(rows.map((r) => r.name), [
    'subagents and advisors',
    '  Anna.jsonl (task, p/m)',
    '    Anna/Anna.Eve.jsonl (task, p/m)',
    '  Ghost.jsonl (task, p/m): missing, as recorded',
    '  Cleo.jsonl (task, p/m): missing, spend unknown',
    '  __advisor.jsonl (advisor, p/m)',
    'session with subagents',
    'branch to a9 with its subagents',
  ]);
  assert.equal(rows[3].cost, '$0.7500');
  assert.equal(rows[3].records, '1');
  assert.equal(rows[4].cost, '');
  assert.equal(rows[6].cost, '$2.6373');
});

test('the chart: replies that report a context size, compactions as marks', () => {
  const c = chartPoints(report);
  assert.deepEqual(c.points, [{ x: 2, y: 5000, entryId: 'a1' }, { x: 7, y: 9000, entryId: 'a2' }]);
  assert.deepEqual(c.marks, [{ x: 5, entryId: 'c1' }]);
  assert.equal(c.xMax, 7);
  assert.equal(c.yMax, 9000);
  assert.deepEqual(chartPoints({ records: [], compactions: [] }), { points: [], marks: [], xMax: 0, yMax: 0 });
});
