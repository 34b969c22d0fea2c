import { test } from 'node:test';
import assert from 'node:assert/strict';
import { foldKey, parentsOf, unfoldedRows } from '../../ui/src/tree/fold.js';

// a ─ b ─ c          (chain)
//       └ d ─ e      (branch at b)
// f                  (second root)
const rows = [
  { id: 'a', parentId: null },
  { id: 'b', parentId: 'a' },
  { id: 'c', parentId: 'b' },
  { id: 'd', parentId: 'b' },
  { id: 'e', parentId: 'd' },
  { id: 'f', parentId: null },
];

test('folding a row hides its whole subtree, nothing else', () => {
  assert.deepEqual(unfoldedRows(rows, new Set()), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(unfoldedRows(rows, new Set(['b'])), [0, 1, 5]);
  assert.deepEqual(unfoldedRows(rows, new Set(['d'])), [0, 1, 2, 3, 5]);
  assert.deepEqual(unfoldedRows(rows, new Set(['a', 'd'])), [0, 5]);
  assert.deepEqual(unfoldedRows(rows, new Set(['e', 'f'])), [0, 1, 2, 3, 4, 5]);
});

test('← folds a row with children, else goes to the parent; → unfolds', () => {
  const parents = parentsOf(rows);
  assert.deepEqual([...parents].sort(), ['a', 'b', 'd']);
  const none = new Set();
  assert.deepEqual(foldKey(rows[1], 'ArrowLeft', none, parents), { fold: 'b' });
  assert.deepEqual(foldKey(rows[2], 'ArrowLeft', none, parents), { select: 'b' });
  assert.deepEqual(foldKey(rows[1], 'ArrowLeft', new Set(['b']), parents), { select: 'a' });
  assert.equal(foldKey(rows[5], 'ArrowLeft', none, parents), null);
  assert.deepEqual(foldKey(rows[1], 'ArrowRight', new Set(['b']), parents), { unfold: 'b' });
  assert.equal(foldKey(rows[1], 'ArrowRight', none, parents), null);
  assert.equal(foldKey(undefined, 'ArrowLeft', none, parents), null);
  assert.equal(foldKey(rows[1], 'x', none, parents), null);
});
