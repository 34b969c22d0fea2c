import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareContexts, compareRows, compareSummary } from '../../ui/src/compare/align.js';

const msg = (entryId, role, text, llmTokens) => ({ entryId, role, text, llmTokens });
const ctx = (leafId, messages) => ({ leafId, messages, llmTokens: messages.reduce((s, m) => s + m.llmTokens, 0) });

test('two leaves: shared prefix, the divergence, what only one side has, tokens on each side', () => {
  const u1 = msg('u1', 'user', 'hi', 10);
  const a1 = msg('a1', 'assistant', 'hello', 20);
  const left = ctx('a3', [u1, a1, msg('u2', 'user', 'left way', 5), msg('a3', 'assistant', 'ok', 7)]);
  const right = ctx('b4', [u1, a1, msg('u3', 'user', 'right way', 6), msg('a4', 'assistant', 'sure', 8), msg('u5', 'user', 'more', 9)]);
  const cmp = compareContexts(left, right);
  assert.equal(cmp.shared, 2);
  assert.equal(cmp.divergeAt, 2);
  assert.deepEqual(cmp.rows.map((r) => [r.op, r.left?.entryId ?? null, r.right?.entryId ?? null]), [
    ['same', 'u1', 'u1'], ['same', 'a1', 'a1'],
    ['differ', 'u2', 'u3'], ['differ', 'a3', 'a4'], ['differ', null, 'u5'],
  ]);
  assert.deepEqual(cmp.tokens, { left: 42, right: 53, shared: 30, onlyLeft: 12, onlyRight: 23 });
  assert.deepEqual(cmp.counts, { onlyLeft: 2, onlyRight: 3 });
  assert.equal(
    compareSummary(cmp, 'a3', 'b4'),
    'A a3: 42 tokens · B b4: 53 tokens · shared 2 messages (30 tokens) · they diverge at message 3 · only in A: 2 messages (12 tokens) · only in B: 3 messages (23 tokens)',
  );
});

test('the same leaf twice is one shared run; long shared runs fold', () => {
  const many = Array.from({ length: 10 }, (_, i) => msg(`m${i}`, 'user', `t${i}`, 1));
  const same = compareContexts(ctx('x', many), ctx('x', many));
  assert.equal(same.divergeAt, null);
  assert.equal(same.shared, 10);
  assert.deepEqual(compareRows(same).map((r) => r.op), ['gap']);
  const changed = compareContexts(ctx('x', many), ctx('y', [...many.slice(0, 9), msg('z', 'user', 'other', 3)]));
  const rows = compareRows(changed);
  assert.deepEqual(rows.map((r) => r.op), ['gap', 'same', 'same', 'differ']);
  assert.equal(rows[0].count, 7);
  // A message whose text changed (same entry) shows as different on both sides.
  const edited = compareContexts(ctx('x', [msg('e', 'user', 'a', 1)]), ctx('x', [msg('e', 'user', 'b', 1)]));
  assert.deepEqual(edited.rows.map((r) => [r.op, r.left.text, r.right.text]), [['differ', 'a', 'b']]);
});
