import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffContexts, diffRows, diffSummary, lcsPairs, messageKey, textHash } from '../../ui/src/diff/context-diff.js';

const msg = (entryId, role, text, llmTokens = 10) => ({ entryId, role, text, llmTokens });
const ctx = (messages, extra = {}) => ({
  messages, llmTokens: messages.reduce((s, m) => s + m.llmTokens, 0), estimateProjectedContextTokens: { tokens: 0 }, ...extra,
});

test('the text hash is stable and tells texts apart', () => {
  assert.equal(textHash('abc'), textHash('abc'));
  assert.notEqual(textHash('abc'), textHash('abd'));
  assert.equal(textHash(''), '811c9dc5'); // FNV-1a offset basis: nothing hashed
  assert.match(textHash('x'.repeat(10_000)), /^[0-9a-f]{8}$/);
});

test('the key holds entry id, role and text: the same entry with new text is another message', () => {
  assert.equal(messageKey(msg('a', 'user', 'hi')), messageKey(msg('a', 'user', 'hi', 99)));
  assert.notEqual(messageKey(msg('a', 'user', 'hi')), messageKey(msg('a', 'user', 'ho')));
  assert.notEqual(messageKey(msg('a', 'user', 'hi')), messageKey(msg('a', 'assistant', 'hi')));
  assert.notEqual(messageKey(msg('a', 'user', 'hi')), messageKey(msg('b', 'user', 'hi')));
});

test('LCS pairs: prefix, suffix and the middle are aligned', () => {
  assert.deepEqual(lcsPairs([], []), []);
  assert.deepEqual(lcsPairs(['a', 'b', 'c'], ['a', 'b', 'c']), [[0, 0], [1, 1], [2, 2]]);
  assert.deepEqual(lcsPairs(['a', 'x', 'b', 'c'], ['a', 'b', 'y', 'c']), [[0, 0], [2, 1], [3, 3]]);
  assert.deepEqual(lcsPairs(['a', 'b'], ['c', 'd']), []);
  // A B C B D A B vs B D C A B A: the classic example has LCS length 4.
  assert.equal(lcsPairs([...'ABCBDAB'], [...'BDCABA']).length, 4);
});

test('a compaction: summarized messages removed, the summary added first, kept messages unchanged', () => {
  const before = ctx([msg('u1', 'user', 'q1', 100), msg('a1', 'assistant', 'r1', 300), msg('u2', 'user', 'q2', 50), msg('a2', 'assistant', 'r2', 60)]);
  const after = ctx([msg('c1', 'compactionSummary', 'The summary', 40), msg('u2', 'user', 'q2', 50), msg('a2', 'assistant', 'r2', 60)]);
  const d = diffContexts(before, after);
  assert.deepEqual(d.ops.map((o) => `${o.op} ${(o.after ?? o.before).entryId}`), [
    'removed u1', 'removed a1', 'added c1', 'same u2', 'same a2',
  ]);
  assert.deepEqual(d.counts, { same: 2, removed: 2, added: 1, removedTokens: 400, addedTokens: 40 });
  assert.deepEqual({ before: d.tokens.before, after: d.tokens.after, delta: d.tokens.delta }, { before: 510, after: 150, delta: -360 });
  assert.equal(diffSummary(d), '2 removed · 1 added · 2 unchanged · tokens 510 → 150 (−360)');
});

test('a pruned tool output: the same entry with new text is removed and added in place', () => {
  const before = ctx([msg('u', 'user', 'go'), msg('r0', 'toolResult', 'x'.repeat(400), 100), msg('a', 'assistant', 'ok')]);
  const after = ctx([msg('u', 'user', 'go'), msg('r0', 'toolResult', '[Output truncated - 100 tokens]', 8), msg('a', 'assistant', 'ok')]);
  const d = diffContexts(before, after);
  assert.deepEqual(d.ops.map((o) => o.op), ['same', 'removed', 'added', 'same']);
  assert.equal(d.tokens.delta, -92);
});

test('the context totals are the views\' own numbers, and an unknown estimate stays unknown', () => {
  const d = diffContexts(
    { messages: [msg('a', 'user', 't', 5)], llmTokens: 7, estimateProjectedContextTokens: { tokens: 9 } },
    { messages: [], llmTokens: 0, estimateProjectedContextTokens: { tokens: 0, unknownAfterCompaction: true } },
  );
  assert.equal(d.tokens.before, 7);
  assert.equal(d.tokens.estimateBefore, 9);
  assert.equal(d.tokens.estimateAfter, null);
  assert.equal(diffSummary(d), '1 removed · 0 added · 0 unchanged · tokens 7 → 0 (−7)');
});

test('rows fold long runs of unchanged messages, keeping two next to each change', () => {
  const same = Array.from({ length: 10 }, (_, i) => msg(`s${i}`, 'user', `t${i}`));
  const before = ctx([...same, msg('old', 'user', 'old')]);
  const after = ctx([...same, msg('new', 'user', 'new')]);
  const rows = diffRows(diffContexts(before, after));
  assert.deepEqual(rows.map((r) => (r.op === 'gap' ? `gap ${r.count}` : `${r.op} ${r.msg.entryId}`)), [
    'gap 8', 'same s8', 'same s9', 'removed old', 'added new',
  ]);
  // Nothing changed: one gap.
  const rows2 = diffRows(diffContexts(ctx(same), ctx(same)));
  assert.deepEqual(rows2, [{ op: 'gap', count: 10 }]);
});

test('large contexts with a large changed middle stay bounded (no table), still correct at the ends', () => {
  const a = Array.from({ length: 3000 }, (_, i) => msg(`a${i}`, 'user', 'x'));
  const b = Array.from({ length: 3000 }, (_, i) => msg(`b${i}`, 'user', 'x'));
  const d = diffContexts(ctx([msg('h', 'user', 'head'), ...a]), ctx([msg('h', 'user', 'head'), ...b]));
  assert.equal(d.counts.same, 1);
  assert.equal(d.counts.removed, 3000);
  assert.equal(d.counts.added, 3000);
});
