import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contextShown, initialState, leafAsked, selectedId } from '../../ui/src/state.js';
import { NO_ROWS } from '../../ui/src/tree/table.js';

test('the state at start: no session, no rows, nothing selected, the file\'s leaf followed', () => {
  const s = initialState();
  assert.equal(s.session, null);
  assert.equal(s.rows, NO_ROWS);
  assert.equal(s.selected, -1);
  assert.equal(s.followFile, true);
  assert.equal(s.leafId, null);
  assert.deepEqual(s.view, { filter: 'all', showMetadata: false, query: '' });
  assert.equal(s.parents.has('a'), false);
  assert.equal(s.busy, false);
  assert.equal(s.reloads, 0);
  assert.deepEqual(Object.keys(s).sort(), [
    'allRows', 'budget', 'busy', 'compareLeaf', 'entry', 'entryRequests', 'folded', 'followFile', 'leafId',
    'overlay', 'parents', 'plan', 'planRows', 'planStatus', 'previews', 'reloads', 'rows', 'selected',
    'session', 'settings', 'shown', 'view', 'window',
  ]);
});

test('every start state has its own sets and maps (the caches are never shared)', () => {
  const a = initialState();
  const b = initialState();
  assert.notEqual(a.folded, b.folded);
  assert.notEqual(a.previews, b.previews);
  assert.notEqual(a.planRows, b.planRows);
  assert.notEqual(a.view, b.view);
});

test('selectedId: the selected row\'s id, null when nothing is selected', () => {
  const rows = { id: (k) => (k >= 0 && k < 2 ? ['a', 'b'][k] : null) };
  assert.equal(selectedId({ rows, selected: 1 }), 'b');
  assert.equal(selectedId({ rows, selected: -1 }), null);
  assert.equal(selectedId(initialState()), null);
});

test('leafAsked: null while the file\'s leaf is followed, else the leaf', () => {
  assert.equal(leafAsked({ followFile: true, leafId: 'x' }), null);
  assert.equal(leafAsked({ followFile: false, leafId: 'x' }), 'x');
  assert.equal(leafAsked(initialState()), null);
});

test('contextShown: the context on screen when it is the leaf asked for, of the open file', () => {
  const session = { file: '/s.jsonl' };
  const ctx = { messages: [] };
  const fileLeaf = { session, shown: { path: '/s.jsonl', requested: null, leafId: 'z', ctx } };
  assert.equal(contextShown(fileLeaf, null), ctx);
  assert.equal(contextShown(fileLeaf, 'z'), ctx);
  assert.equal(contextShown(fileLeaf, 'y'), null);
  const chosen = { session, shown: { path: '/s.jsonl', requested: 'y', leafId: 'y', ctx } };
  assert.equal(contextShown(chosen, 'y'), ctx);
  // Drawn from a leaf asked for by id: not the file's leaf, even when it is the same entry.
  assert.equal(contextShown(chosen, null), null);
  // Another file's context, or none drawn yet.
  assert.equal(contextShown({ session: { file: '/t.jsonl' }, shown: fileLeaf.shown }, null), null);
  assert.equal(contextShown({ session, shown: null }, null), null);
  assert.equal(contextShown(initialState(), null), null);
});
