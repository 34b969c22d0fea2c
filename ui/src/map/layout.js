// The branch map's layout (pure, no DOM): the shown rows of the tree squeezed into a canvas of
// `height` pixel rows, one lane per indentation level (a branch point starts a new lane, as
// `git log --graph` draws it), each pixel row painted with the most telling state of the rows
// it covers. Costs one pass over the shown rows, so 200,000 rows stay cheap.

import { lowerBound } from '../sorted.js';

const IS_LEAF = 1;
const ON_PATH = 4;

/** Paint order: a pixel showing several rows shows the highest of these. */
const PRIORITY = {
  'off-path': 1, metadata: 1, excluded: 2, 'old-compaction': 3, summarized: 4, pruned: 5, hidden: 5, replaced: 5,
  kept: 6, 'branch-summary': 7, compaction: 8,
};

/**
 * `{ height, lanes, cells, … }` for `list` (a `rowList`) of table `t`: `cells` holds, per pixel row
 * `y` and lane `x` (`cells[y * lanes + x]`), 0 for nothing, else `1 + index in t.states` of the
 * state shown there, with 0x80 set when a row on the selected leaf's path is in it and 0x40
 * for the leaf itself. Lanes past `maxLanes` share the last one.
 */
export function mapCells(t, list, height, maxLanes = 24) {
  const n = list.length;
  // The table rows shown, as an array (a rowList's own), and each state's paint priority.
  const rows = list.index ?? Uint32Array.from({ length: n }, (_, k) => list.row(k));
  const priority = Uint8Array.from(t.states, (name) => PRIORITY[name] ?? 1);
  const { indent } = t;
  let deepest = 0;
  for (let k = 0; k < n; k++) deepest = Math.max(deepest, indent[rows[k]]);
  const lanes = Math.min(deepest, maxLanes - 1) + 1;
  const h = Math.max(1, Math.floor(height));
  const cells = new Uint8Array(h * lanes);
  const prio = new Uint8Array(h * lanes);
  const model = {
    height: h, lanes, cells, prio, priority,
  };
  for (let k = 0; k < n; k++) paintRow(model, t, rows[k], rowToY(k, n, h));
  return model;
}

/** Paints table row `r` into pixel row `y` of `model` (`mapCells`'s). */
function paintRow({
  lanes, cells, prio, priority,
}, t, r, y) {
  const at = y * lanes + Math.min(t.indent[r], lanes - 1);
  const p = priority[t.state[r]];
  const f = t.flags[r];
  if (p > prio[at]) {
    prio[at] = p;
    cells[at] = (cells[at] & 0xc0) | (t.state[r] + 1);
  }
  cells[at] |= (f & ON_PATH ? 0x80 : 0) | (f & IS_LEAF && f & ON_PATH ? 0x40 : 0);
}

/**
 * After a leaf change that kept the same rows shown (`list`, as `model` was made for): paints
 * again, from table `t`, only the pixel rows holding the rows `changed`, instead of every row.
 * Returns those pixel rows (ascending); `model` then equals `mapCells(t, list, height)`.
 */
export function patchCells(model, t, list, changed) {
  const rows = list.index;
  const n = rows.length;
  const h = model.height;
  const ys = new Set();
  for (const r of changed) {
    const k = lowerBound(rows, r);
    if (k < n && rows[k] === r) ys.add(rowToY(k, n, h));
  }
  const { lanes, cells, prio } = model;
  const done = [...ys].sort((a, b) => a - b);
  for (const y of done) {
    cells.fill(0, y * lanes, (y + 1) * lanes);
    prio.fill(0, y * lanes, (y + 1) * lanes);
    // The shown rows drawn at pixel row y: a run, found from a guess by rowToY itself.
    let k = Math.min(n - 1, Math.floor((y * n) / h));
    while (k > 0 && rowToY(k - 1, n, h) >= y) k--;
    while (k < n && rowToY(k, n, h) < y) k++;
    for (; k < n && rowToY(k, n, h) === y; k++) paintRow(model, t, rows[k], y);
  }
  return done;
}

/** The pixel row of shown row `k` of `n` on a map `height` pixels high. */
export function rowToY(k, n, height) {
  return n <= 1 ? 0 : Math.min(height - 1, Math.floor((k * height) / n));
}

/** The shown row at pixel row `y` (a click, a drag): the first row drawn there. */
export function yToRow(y, n, height) {
  if (n === 0) return -1;
  const k = Math.floor((Math.max(0, Math.min(height - 1, y)) * n) / height);
  return Math.min(n - 1, k);
}

/** The band of the map showing rows `first`…`last` (the tree's window): `{ top, size }` in pixels. */
export function viewportBand(first, last, n, height) {
  if (n === 0) return { top: 0, size: height };
  const top = rowToY(first, n, height);
  const bottom = rowToY(Math.max(first, last), n, height);
  return { top, size: Math.max(2, bottom - top + 1) };
}
