// The branch map's layout (pure, no DOM): the shown rows of the tree squeezed into a canvas of
// `height` pixel rows, one lane per indentation level (a branch point starts a new lane, as
// `git log --graph` draws it), each pixel row painted with the most telling state of the rows
// it covers. Costs one pass over the shown rows, so 200,000 rows stay cheap.

const IS_LEAF = 1;
const ON_PATH = 4;

/** Paint order: a pixel showing several rows shows the highest of these. */
const PRIORITY = {
  'off-path': 1, metadata: 1, excluded: 2, 'old-compaction': 3, summarized: 4, pruned: 5, hidden: 5, replaced: 5,
  kept: 6, 'branch-summary': 7, compaction: 8,
};

/**
 * `{ height, lanes, cells }` for `list` (a `rowList`) of table `t`: `cells` holds, per pixel row
 * `y` and lane `x` (`cells[y * lanes + x]`), 0 for nothing, else `1 + index in t.states` of the
 * state shown there, with 0x80 set when a row on the selected leaf's path is in it and 0x40
 * for the leaf itself. Lanes past `maxLanes` share the last one.
 */
export function mapCells(t, list, height, maxLanes = 24) {
  const n = list.length;
  // The table rows shown, as an array (a rowList's own), and each state's paint priority.
  const rows = list.index ?? Uint32Array.from({ length: n }, (_, k) => list.row(k));
  const priority = Uint8Array.from(t.states, (name) => PRIORITY[name] ?? 1);
  const { indent, state, flags } = t;
  let deepest = 0;
  for (let k = 0; k < n; k++) deepest = Math.max(deepest, indent[rows[k]]);
  const lanes = Math.min(deepest, maxLanes - 1) + 1;
  const h = Math.max(1, Math.floor(height));
  const cells = new Uint8Array(h * lanes);
  const prio = new Uint8Array(h * lanes);
  for (let k = 0; k < n; k++) {
    const r = rows[k];
    const y = rowToY(k, n, h);
    const x = Math.min(indent[r], lanes - 1);
    const at = y * lanes + x;
    const p = priority[state[r]];
    const f = flags[r];
    const marks = (f & ON_PATH ? 0x80 : 0) | (f & IS_LEAF && f & ON_PATH ? 0x40 : 0);
    if (p > prio[at]) {
      prio[at] = p;
      cells[at] = (cells[at] & 0xc0) | (state[r] + 1);
    }
    cells[at] |= marks;
  }
  return { height: h, lanes, cells };
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
