import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  mapCells, patchCells, rowToY, viewportBand, yToRow,
} from '../../ui/src/map/layout.js';

// A table of 4 rows: root (lane 0, on path), a kept child (lane 0, on path, the leaf), a branch
// (lane 1, off path), a summarized row (lane 0).
const t = {
  indent: Uint32Array.from([0, 0, 1, 0]),
  state: Uint8Array.from([0, 0, 1, 2]),
  flags: Uint8Array.from([4, 4 | 1, 0, 4]),
  states: ['kept', 'off-path', 'summarized'],
};
const list = (rows) => ({ length: rows.length, row: (k) => rows[k] });

test('one cell per pixel row and lane, with the path and the leaf marked', () => {
  const m = mapCells(t, list([0, 1, 2, 3]), 4);
  assert.equal(m.lanes, 2);
  assert.deepEqual(Array.from(m.cells), [
    0x80 | 1, 0, // root: kept, on path
    0x80 | 0x40 | 1, 0, // the leaf
    0, 2, // the branch: off path, lane 1
    0x80 | 3, 0, // summarized, on path
  ]);
});

test('many rows in few pixels: the most telling state wins, the path mark stays', () => {
  const m = mapCells(t, list([0, 1, 2, 3]), 1);
  assert.equal(m.height, 1);
  assert.equal(m.cells[0] & 0x3f, 1, 'kept outranks summarized');
  assert.ok(m.cells[0] & 0x80 && m.cells[0] & 0x40);
  assert.equal(m.cells[1] & 0x3f, 2);
});

test('pixels and rows map both ways; the band covers the tree window', () => {
  assert.equal(rowToY(0, 200_000, 600), 0);
  assert.equal(rowToY(199_999, 200_000, 600), 599);
  assert.equal(yToRow(0, 200_000, 600), 0);
  assert.equal(yToRow(599, 200_000, 600), 199_666);
  assert.equal(yToRow(300, 3, 600), 1);
  assert.equal(yToRow(10, 0, 600), -1);
  assert.deepEqual(viewportBand(100_000, 100_030, 200_000, 600), { top: 300, size: 2 });
  assert.deepEqual(viewportBand(0, 1, 2, 600), { top: 0, size: 301 });
});

test('200,000 rows lay out in one pass', () => {
  const n = 200_000;
  const big = {
    indent: new Uint32Array(n).map((_, i) => i % 7),
    state: new Uint8Array(n).map((_, i) => i % 3),
    flags: new Uint8Array(n),
    states: t.states,
  };
  const rows = Uint32Array.from({ length: n }, (_, i) => i);
  const m = mapCells(big, list(rows), 800);
  assert.equal(m.lanes, 7);
  assert.equal(m.cells.length, 800 * 7);
});

test('after a leaf change, patching the pixel rows of the changed rows is mapCells again', () => {
  const n = 5000;
  let seed = 3;
  const rand = (k) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % k;
  };
  const table = (state, flags) => ({
    indent: Uint32Array.from({ length: n }, (_, i) => i % 5), state, flags, states: ['kept', 'off-path', 'summarized', 'metadata'],
  });
  const before = table(Uint8Array.from({ length: n }, () => rand(4)), Uint8Array.from({ length: n }, () => rand(2) * 4));
  const shown = Uint32Array.from({ length: n / 2 }, (_, k) => 2 * k + 1);
  const list = { index: shown, length: shown.length, row: (k) => shown[k] };
  for (const height of [1, 7, 600, 4000]) {
    const model = mapCells(before, list, height);
    // Rows shown and not, alone and in runs, the first and the last.
    const changed = Uint32Array.from(new Set([0, 1, 2, 3, 501, 777, 778, 779, 2400, n - 2, n - 1])).sort();
    const state = before.state.slice();
    const flags = before.flags.slice();
    for (const r of changed) {
      state[r] = rand(4);
      flags[r] = (rand(2) * 4) | (r === 777 ? 1 : 0);
    }
    const after = table(state, flags);
    const ys = patchCells(model, after, list, changed);
    assert.ok(ys.length > 0 && ys.length <= changed.length);
    const want = mapCells(after, list, height);
    assert.deepEqual(Array.from(model.cells), Array.from(want.cells), `height ${height}`);
  }
});
