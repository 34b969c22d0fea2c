import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FILTERS, matchesQuery, nextMatch, passesFilter, visibleRows } from '../../ui/src/tree/filter.js';

const row = (id, entryType, kind, extra = {}) => ({ id, entryType, kind, state: 'kept', label: null, ...extra });
const rows = [
  row('a1', 'message', 'user'),
  row('b2', 'message', 'assistant', { label: 'checkpoint' }),
  row('c3', 'message', 'toolResult'),
  row('d4', 'model_change', 'model_change', { state: 'metadata' }),
  row('e5', 'message', 'bashExecution'),
  row('f6', 'message', 'user', { state: 'off-path' }),
];
const previews = new Map([['a1', 'fix the crash in the parser'], ['f6', 'try the other approach']]);
const preview = (id) => previews.get(id) ?? '';

test('the default filter shows everything but metadata rows', () => {
  assert.equal(FILTERS[0].id, 'all');
  assert.deepEqual(visibleRows(rows), [0, 1, 2, 4, 5]);
  assert.deepEqual(visibleRows(rows, { showMetadata: true }), [0, 1, 2, 3, 4, 5]);
});

test('no tools, user only, labelled', () => {
  assert.deepEqual(visibleRows(rows, { filter: 'no-tools' }), [0, 1, 5]);
  assert.deepEqual(visibleRows(rows, { filter: 'user' }), [0, 5]);
  assert.deepEqual(visibleRows(rows, { filter: 'labelled' }), [1]);
  assert.equal(passesFilter(rows[1], 'labelled'), true);
  assert.equal(passesFilter({ ...rows[1], label: '' }, 'labelled'), false);
});

test('kept ids (the leaf, the selection) are shown whatever the filter', () => {
  assert.deepEqual(visibleRows(rows, { filter: 'labelled' }, new Set(['d4', 'a1'])), [0, 1, 3]);
});

test('search matches id, role, label and loaded previews, case-insensitively, every word', () => {
  assert.equal(matchesQuery(rows[0], 'CRASH', preview('a1')), true);
  assert.equal(matchesQuery(rows[0], 'crash parser', preview('a1')), true);
  assert.equal(matchesQuery(rows[0], 'crash tests', preview('a1')), false);
  assert.equal(matchesQuery(rows[1], 'checkpoint'), true);
  assert.equal(matchesQuery(rows[2], 'tool result'), true);
  assert.equal(matchesQuery(rows[4], 'bash'), true);
  assert.equal(matchesQuery(rows[3], 'd4'), true);
  assert.equal(matchesQuery(rows[0], '   '), true);
  assert.deepEqual(visibleRows(rows, { query: 'user' }, new Set(), preview), [0, 5]);
  assert.deepEqual(visibleRows(rows, { query: 'approach' }, new Set(), preview), [5]);
});

test('Enter goes to the next match, wrapping; none gives -1', () => {
  assert.equal(nextMatch(rows, 'user', 0, preview), 5);
  assert.equal(nextMatch(rows, 'user', 5, preview), 0);
  assert.equal(nextMatch(rows, 'user', -1, preview), 0);
  assert.equal(nextMatch(rows, 'user', 0, preview, -1), 5);
  assert.equal(nextMatch(rows, 'zzz', 0, preview), -1);
  assert.equal(nextMatch(rows, '', 0, preview), -1);
  assert.equal(nextMatch([], 'a', 0, preview), -1);
});
