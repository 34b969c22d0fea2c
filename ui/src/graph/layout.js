// The branch graph's layout (pure, no DOM): the tree table's rows grouped into turns (a user
// request and the entries that follow it on the same chain), each turn one node, laid out in
// lanes as `git log --graph` draws commits: a branch keeps its lane while it has turns to come
// and gives it back where it ends. Reads the table's columns (tree/table.js's `decodeTable`)
// and nothing else, so 200,000 rows cost one pass and a few typed arrays.
//
// Three parts, cached apart because they change at different times: the shape (turns, lanes,
// edges) depends only on the tree; the paint (states, path) on the selected leaf; the slots (a
// turn's height) on which turns are expanded.

/** The parent of a root row (tree/table.js's `NO_ROW`). */
const NO_ROW = 0xffffffff;
/** The parent of a root node. */
export const NO_NODE = 0xffffffff;
const IS_LEAF = 1;
const CHILDLESS = 2;
const ON_PATH = 4;
const CONNECTOR = 3 << 3;

/** What a node's first row is: a turn, a compaction, a branch summary, or anything else. */
export const MARK = { turn: 0, compaction: 1, branchSummary: 2, other: 3 };

/** Edges are indexed by the node range they span, in buckets of this many nodes. */
export const BUCKET = 64;

/**
 * The mark of kind code `k` of table `t`: compactions and branch summaries are marks of their
 * own, a user message starts a turn.
 */
function markOfKinds(t) {
  return t.kinds.map(({ entryType, kind }) => {
    if (entryType === 'compaction') return MARK.compaction;
    if (entryType === 'branch_summary') return MARK.branchSummary;
    if (entryType === 'message' && kind === 'user') return MARK.turn;
    return MARK.other;
  });
}

/**
 * Whether table row `i` starts a node: a root, a child of a branch point (it has a connector),
 * a user message, a compaction or a branch summary. Any other row continues its parent's
 * node, which, in the table's pre-order, is the row just before it.
 */
function startsNode(t, marks, i) {
  if (t.parent[i] === NO_ROW || (t.flags[i] & CONNECTOR) !== 0) return true;
  return marks[t.kind[i]] !== MARK.other;
}

/**
 * The lowest lane not in use, taken. `used` grows as lanes are opened.
 * @param {number[]} used
 */
function takeLane(used) {
  let lane = used.indexOf(0);
  if (lane < 0) lane = used.push(0) - 1;
  used[lane] = 1;
  return lane;
}

/**
 * The graph's shape for table `t`, independent of the leaf: `{ count, start, end, parent,
 * lane, lanes, mark, tip, tokens, nodeOfRow, childStart, children, labels, edgeStart, edges }`.
 * Node `v` holds table rows `start[v]` … `end[v] - 1` (consecutive: a chain in pre-order);
 * `parent[v]` is the node its first row hangs from (`NO_NODE` for a root), always before it;
 * `tip[v]` is 1 when its last row has no children (a leaf the user can pick);
 * `children` lists each node's child nodes from `childStart[v]` to `childStart[v + 1]`, in
 * the tree's order; `labels` maps a node to the first label on its rows. `edgeStart` /
 * `edges`: per bucket of `BUCKET` nodes, the child nodes whose edge (parent to child) spans it.
 */
export function graphShape(t) {
  const n = t.n;
  const marks = markOfKinds(t);
  const nodeOfRow = new Uint32Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (startsNode(t, marks, i)) count++;
    nodeOfRow[i] = count - 1;
  }
  const start = new Uint32Array(count);
  const end = new Uint32Array(count);
  const parent = new Uint32Array(count);
  const mark = new Uint8Array(count);
  const tip = new Uint8Array(count);
  const tokens = new Float64Array(count);
  for (let i = 0, v = -1; i < n; i++) {
    if (v < 0 || nodeOfRow[i] !== v) {
      v = nodeOfRow[i];
      start[v] = i;
      const p = t.parent[i];
      parent[v] = p === NO_ROW ? NO_NODE : nodeOfRow[p];
      mark[v] = marks[t.kind[i]];
    }
    end[v] = i + 1;
    tokens[v] += t.tokens[i];
  }
  for (let v = 0; v < count; v++) tip[v] = t.flags[end[v] - 1] & CHILDLESS ? 1 : 0;
  const labels = new Map();
  for (const [row, label] of t.labels) {
    const v = nodeOfRow[row];
    if (row < n && !labels.has(v)) labels.set(v, label);
  }

  // Children, in order (counting sort on the parent: the tree's order is kept).
  const childStart = new Uint32Array(count + 1);
  for (let v = 0; v < count; v++) if (parent[v] !== NO_NODE) childStart[parent[v] + 1]++;
  for (let v = 0; v < count; v++) childStart[v + 1] += childStart[v];
  const children = new Uint32Array(Math.max(0, childStart[count]));
  const fill = childStart.slice(0, count);
  for (let v = 0; v < count; v++) if (parent[v] !== NO_NODE) children[fill[parent[v]]++] = v;

  // Lanes, as `git log --graph` assigns them: the first child continues its parent's lane;
  // later children are given a lane at the branch point, kept free for them until they come;
  // a branch's lane is free again after its last node.
  const lane = new Uint32Array(count);
  const given = new Uint8Array(count);
  const used = [];
  let lanes = 0;
  for (let v = 0; v < count; v++) {
    if (!given[v]) lane[v] = takeLane(used);
    const first = childStart[v];
    const last = childStart[v + 1];
    if (first === last) {
      used[lane[v]] = 0;
    } else {
      lane[children[first]] = lane[v];
      given[children[first]] = 1;
      for (let c = first + 1; c < last; c++) {
        lane[children[c]] = takeLane(used);
        given[children[c]] = 1;
      }
    }
    lanes = Math.max(lanes, used.length);
  }

  const { edgeStart, edges } = edgeBuckets(parent, count);
  return {
    count, start, end, parent, lane, lanes: Math.max(1, lanes), mark, tip, tokens, nodeOfRow,
    childStart, children, labels, edgeStart, edges,
  };
}

/** Per bucket of `BUCKET` nodes, the nodes whose incoming edge spans it (CSR arrays). */
function edgeBuckets(parent, count) {
  const buckets = Math.ceil(count / BUCKET);
  const edgeStart = new Uint32Array(buckets + 1);
  for (let v = 0; v < count; v++) {
    if (parent[v] === NO_NODE) continue;
    for (let b = Math.floor(parent[v] / BUCKET); b <= Math.floor(v / BUCKET); b++) edgeStart[b + 1]++;
  }
  for (let b = 0; b < buckets; b++) edgeStart[b + 1] += edgeStart[b];
  const edges = new Uint32Array(edgeStart[buckets]);
  const fill = edgeStart.slice(0, buckets);
  for (let v = 0; v < count; v++) {
    if (parent[v] === NO_NODE) continue;
    for (let b = Math.floor(parent[v] / BUCKET); b <= Math.floor(v / BUCKET); b++) edges[fill[b]++] = v;
  }
  return { edgeStart, edges };
}

/**
 * Calls `visit(v)` once for each node `v` whose incoming edge may cross nodes `first` … `last`
 * (the ones on screen): the edges of the buckets they are in, each once.
 */
export function edgesAcross(shape, first, last, visit) {
  if (shape.count === 0 || last < first) return;
  const from = Math.floor(Math.max(0, first) / BUCKET);
  const to = Math.floor(Math.min(shape.count - 1, last) / BUCKET);
  const seen = new Set();
  for (let b = from; b <= to; b++) {
    for (let k = shape.edgeStart[b]; k < shape.edgeStart[b + 1]; k++) {
      const v = shape.edges[k];
      if (shape.parent[v] > last || v < first) continue;
      if (seen.has(v)) continue;
      seen.add(v);
      visit(v);
    }
  }
}

/** Which state a node shows when its rows differ: the most telling one. */
const PRIORITY = {
  'off-path': 1, metadata: 1, excluded: 2, 'old-compaction': 3, summarized: 4, hidden: 5, replaced: 5, pruned: 6,
  kept: 7, 'branch-summary': 8, compaction: 9,
};

/**
 * The graph's colours for the leaf of table `t` (its `state` and `flags` columns):
 * `{ state, onPath, pruned, leafNode, leafRow }`. Per node, `state` is the index (into
 * `t.states`) of the state its rows hold the most tokens in (the most telling state on a tie;
 * metadata counts only when nothing else is there); `onPath` is 1 when its first row is on the
 * path to the leaf, 2 when all its rows are; `pruned` 1 when some of its rows were pruned,
 * hidden or replaced while others are kept. `leafNode` holds the leaf (`NO_NODE`: none).
 */
export function graphPaint(t, shape) {
  const { count, start, end } = shape;
  const nStates = t.states.length;
  const priority = t.states.map((name) => PRIORITY[name] ?? 1);
  const metadata = t.states.indexOf('metadata');
  const cut = new Set(['pruned', 'hidden', 'replaced'].map((s) => t.states.indexOf(s)).filter((s) => s >= 0));
  const kept = t.states.indexOf('kept');
  const state = new Uint8Array(count);
  const onPath = new Uint8Array(count);
  const pruned = new Uint8Array(count);
  const weight = new Float64Array(nStates);
  let leafNode = NO_NODE;
  let leafRow = NO_ROW;
  for (let v = 0; v < count; v++) {
    weight.fill(0);
    let all = 1;
    for (let i = start[v]; i < end[v]; i++) {
      const s = t.state[i];
      // +1: a row of no tokens still counts, and metadata only when alone.
      weight[s] += s === metadata ? 1e-9 : t.tokens[i] + 1;
      const f = t.flags[i];
      if (!(f & ON_PATH)) all = 0;
      if (f & IS_LEAF && f & ON_PATH) {
        leafNode = v;
        leafRow = i;
      }
    }
    let best = t.state[start[v]];
    for (let s = 0; s < nStates; s++) {
      if (weight[s] > weight[best] || (weight[s] === weight[best] && weight[s] > 0 && priority[s] > priority[best])) best = s;
    }
    state[v] = best;
    onPath[v] = t.flags[start[v]] & ON_PATH ? 1 + all : 0;
    if (kept >= 0 && weight[kept] > 0) for (const s of cut) if (weight[s] > 0) pruned[v] = 1;
  }
  return { state, onPath, pruned, leafNode, leafRow };
}

/**
 * Where each node sits vertically: `top[v]` is its first slot (one slot per turn, one per row
 * of an `expanded` turn: a Set of nodes), `top[count]` the slots in all.
 */
export function graphSlots(shape, expanded = new Set()) {
  const top = new Float64Array(shape.count + 1);
  for (let v = 0; v < shape.count; v++) {
    top[v + 1] = top[v] + (expanded.has(v) ? shape.end[v] - shape.start[v] : 1);
  }
  return top;
}

/** The node occupying slot `slot` (the last one starting at or before it), or -1. */
export function nodeAtSlot(top, slot) {
  const count = top.length - 1;
  if (count <= 0 || slot < 0 || slot >= top[count]) return -1;
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (top[mid] <= slot) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The slot of table row `row`: its node's, or its own inside an expanded node. */
export function slotOfRow(shape, top, row) {
  const v = shape.nodeOfRow[row];
  const height = top[v + 1] - top[v];
  return height > 1 ? top[v] + (row - shape.start[v]) : top[v];
}

/**
 * The node an arrow key leads to from `v`: `up` its parent, `down` its first child, `left` /
 * `right` the previous / next sibling branch (a child of the same branch point, else of the
 * nearest branch point above). `v` itself when there is none.
 */
export function walk(shape, v, direction) {
  const { parent, childStart, children } = shape;
  if (v < 0 || v >= shape.count) return v;
  if (direction === 'up') return parent[v] === NO_NODE ? v : parent[v];
  if (direction === 'down') return childStart[v] < childStart[v + 1] ? children[childStart[v]] : v;
  const step = direction === 'left' ? -1 : 1;
  // Climb to the first ancestor (or `v`) that has siblings in that direction.
  for (let c = v; parent[c] !== NO_NODE; c = parent[c]) {
    const p = parent[c];
    const first = childStart[p];
    const last = childStart[p + 1];
    let k = first;
    while (k < last && children[k] !== c) k++;
    const next = k + step;
    if (next >= first && next < last) return children[next];
  }
  return v;
}
