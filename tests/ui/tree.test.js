import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  STATES, gutterText, marker, rowCountText, rowIndex, stateClass, stateLabel,
} from '../../ui/src/tree/format.js';
import { reduceKey } from '../../ui/src/tree/keys.js';

test('gutters draw guides and connectors in two-character cells, as contextree tree does', () => {
  assert.equal(gutterText({ guides: [], connector: 'none' }), '');
  assert.equal(gutterText({ guides: [], connector: 'tee' }), '├─');
  assert.equal(gutterText({ guides: [true], connector: 'none' }), '│ ');
  assert.equal(gutterText({ guides: [false, true], connector: 'end' }), '  │ └─');
});

test('deep gutters keep their innermost cells after an ellipsis cell', () => {
  const guides = [true, false, true, true];
  assert.equal(gutterText({ guides, connector: 'tee' }, 5), '│   │ │ ├─');
  assert.equal(gutterText({ guides, connector: 'tee' }, 3), '⋯ │ ├─');
  const deep = gutterText({ guides: new Array(500).fill(true), connector: 'end' });
  assert.equal(deep.length, 2 * 12);
  assert.ok(deep.startsWith('⋯ ') && deep.endsWith('└─'));
});

test('the marker shows the leaf, its path, and nothing off the path', () => {
  assert.equal(marker({ isLeaf: true, onPath: true }), '●');
  assert.equal(marker({ isLeaf: false, onPath: true }), '•');
  assert.equal(marker({ isLeaf: false, onPath: false }), ' ');
});

test('every core state has a class and a legend entry; unknown states look like metadata', () => {
  // EntryState::name of crates/contextree-core/src/context/state.rs.
  const core = ['off-path', 'kept', 'pruned', 'summarized', 'compaction', 'old-compaction', 'branch-summary', 'excluded', 'metadata', 'hidden', 'replaced'];
  assert.deepEqual(STATES.map((s) => s.state).sort(), [...core].sort());
  for (const state of core) assert.equal(stateClass(state), `state-${state}`);
  assert.equal(stateClass('from-a-newer-core'), 'state-metadata');
  // Class names come from the list, never from session text.
  assert.equal(stateClass('kept onerror=x'), 'state-metadata');
  assert.equal(stateLabel('excluded'), 'not sent');
  assert.equal(stateLabel('off-path'), 'off path');
});

test('rows are found by id', () => {
  const rows = [{ id: 'a' }, { id: 'b' }];
  assert.equal(rowIndex(rows, 'b'), 1);
  assert.equal(rowIndex(rows, 'z'), -1);
  assert.equal(rowIndex(rows, null), -1);
});

test('the count line says how many rows are shown, and of how many when some are hidden', () => {
  assert.equal(rowCountText(12, 12), '12 rows');
  assert.equal(rowCountText(0, 0), '0 rows');
  assert.equal(rowCountText(3, 12), '3 of 12 rows');
});

test('arrow keys move the selection within the rows', () => {
  const s = (selected) => ({ selected, rowCount: 5, pageRows: 2 });
  assert.deepEqual(reduceKey(s(-1), 'ArrowDown'), { selected: 0, command: null });
  assert.deepEqual(reduceKey(s(-1), 'ArrowUp'), { selected: 0, command: null });
  assert.deepEqual(reduceKey(s(2), 'ArrowDown'), { selected: 3, command: null });
  assert.deepEqual(reduceKey(s(4), 'ArrowDown'), { selected: 4, command: null });
  assert.deepEqual(reduceKey(s(0), 'ArrowUp'), { selected: 0, command: null });
  assert.deepEqual(reduceKey(s(1), 'PageDown'), { selected: 3, command: null });
  assert.deepEqual(reduceKey(s(1), 'PageUp'), { selected: 0, command: null });
  assert.deepEqual(reduceKey(s(3), 'Home'), { selected: 0, command: null });
  assert.deepEqual(reduceKey(s(0), 'End'), { selected: 4, command: null });
});

test('Enter makes the selected row the leaf; g goes back to the file leaf; other keys pass', () => {
  assert.deepEqual(reduceKey({ selected: 3, rowCount: 5 }, 'Enter'), { selected: 3, command: 'select-leaf' });
  assert.equal(reduceKey({ selected: -1, rowCount: 5 }, 'Enter'), null);
  assert.deepEqual(reduceKey({ selected: 3, rowCount: 5 }, 'g'), { selected: 3, command: 'file-leaf' });
  assert.equal(reduceKey({ selected: 3, rowCount: 5 }, 'x'), null);
  assert.equal(reduceKey({ selected: -1, rowCount: 0 }, 'ArrowDown'), null);
});
