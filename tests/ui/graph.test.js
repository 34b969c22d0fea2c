import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  BUCKET, MARK, NO_NODE, edgesAcross, graphPaint, graphShape, graphSlots, nodeAtSlot, slotOfRow, walk,
} from '../../ui/src/graph/layout.js';
import { hoverText } from '../../ui/src/graph/text.js';

const NO_ROW = 0xffffffff;

/**
 * The columns tree/table.js's `decodeTable` gives, from rows in the tree's pre-order:
 * `{ id, parent (row or -1), type, role, state, tokens, label, onPath, isLeaf }`. Connectors,
 * indents and childless flags follow from the parents, as the backend derives them.
 */
function columns(rows) {
  const n = rows.length;
  const kids = new Array(n).fill(0);
  const roots = rows.filter((r) => r.parent < 0).length;
  for (const r of rows) if (r.parent >= 0) kids[r.parent]++;
  const seen = new Array(n).fill(0);
  let rootSeen = 0;
  const states = [...new Set(rows.map((r) => r.state ?? 'kept'))];
  const kinds = [];
  const kindCode = (r) => {
    const k = [r.type ?? 'message', r.role ?? r.type];
    let c = kinds.findIndex(([a, b]) => a === k[0] && b === k[1]);
    if (c < 0) c = kinds.push(k) - 1;
    return c;
  };
  const t = {
    n,
    parent: new Uint32Array(n),
    indent: new Uint32Array(n),
    tokens: new Uint32Array(n),
    line: new Uint32Array(n),
    idEnd: new Uint32Array(n),
    kind: new Uint32Array(n),
    state: new Uint8Array(n),
    flags: new Uint8Array(n),
    ids: rows.map((r) => r.id).join(''),
    states,
    kinds: [],
    labels: new Map(),
    leafRow: NO_ROW,
  };
  let end = 0;
  rows.forEach((r, i) => {
    const siblings = r.parent < 0 ? roots : kids[r.parent];
    const k = r.parent < 0 ? rootSeen++ : seen[r.parent]++;
    const connector = siblings > 1 ? (k + 1 === siblings ? 2 : 1) : 0;
    t.parent[i] = r.parent < 0 ? NO_ROW : r.parent;
    t.indent[i] = (r.parent < 0 ? 0 : t.indent[r.parent]) + (connector ? 1 : 0);
    t.tokens[i] = r.tokens ?? 10;
    t.line[i] = i + 2;
    t.idEnd[i] = end += r.id.length;
    t.kind[i] = kindCode(r);
    t.state[i] = states.indexOf(r.state ?? 'kept');
    const onPath = r.onPath ?? (r.state ?? 'kept') !== 'off-path';
    t.flags[i] = (r.isLeaf ? 1 : 0) | (kids[i] === 0 ? 2 : 0) | (onPath ? 4 : 0) | (connector << 3);
    if (r.isLeaf) t.leafRow = i;
    if (r.label != null) t.labels.set(i, r.label);
  });
  t.kinds = kinds.map(([entryType, kind]) => ({ entryType, kind }));
  return t;
}

/** Rows from `[id, parentId, role or entry type, extra]`, in pre-order. */
function rowsOf(spec) {
  const at = new Map();
  return spec.map(([id, parentId, what, extra = {}], i) => {
    at.set(id, i);
    const message = ['user', 'assistant', 'toolResult'].includes(what);
    return {
      id, parent: parentId == null ? -1 : at.get(parentId), type: message ? 'message' : what, role: message ? what : what, ...extra,
    };
  });
}

// r a ─┬─ b b1 ── b2          three branches at `a`; the second forks again at `c1`
//      ├─ c c1 ─┬─ e
//      │        └─ f (the leaf)
//      └─ d
const BRANCHY = rowsOf([
  ['r', null, 'user'], ['a', 'r', 'assistant'],
  ['b', 'a', 'user', { state: 'off-path' }], ['b1', 'b', 'assistant', { state: 'off-path' }], ['b2', 'b1', 'user', { state: 'off-path' }],
  ['c', 'a', 'user'], ['c1', 'c', 'assistant'],
  ['e', 'c1', 'user', { state: 'off-path' }],
  ['f', 'c1', 'user', { isLeaf: true }],
  ['d', 'a', 'user', { state: 'off-path' }],
]);

test('one node per turn: a user request and what follows it on its chain', () => {
  const s = graphShape(columns(BRANCHY));
  assert.equal(s.count, 7);
  assert.deepEqual([...s.start], [0, 2, 4, 5, 7, 8, 9]);
  assert.deepEqual([...s.end], [2, 4, 5, 7, 8, 9, 10]);
  assert.deepEqual([...s.parent], [NO_NODE, 0, 1, 0, 3, 3, 0]);
  assert.deepEqual([...s.nodeOfRow], [0, 0, 1, 1, 2, 3, 3, 4, 5, 6]);
  assert.deepEqual([...s.tip], [0, 0, 1, 0, 1, 1, 1], 'the childless ends are leaves');
  assert.deepEqual([...s.tokens], [20, 20, 10, 20, 10, 10, 10]);
});

test('lanes as git log --graph: the first child goes on, later ones get lanes kept for them', () => {
  const s = graphShape(columns(BRANCHY));
  // node: 0 r, 1 b, 2 b2, 3 c, 4 e, 5 f, 6 d
  assert.deepEqual([...s.lane], [0, 0, 0, 1, 1, 0, 2]);
  assert.equal(s.lanes, 3);
  // `d`'s lane is kept from the branch point to `d`: no node between them uses it.
  for (let v = 1; v < 6; v++) assert.notEqual(s.lane[v], 2);
  // Children in the tree's order.
  assert.deepEqual([...s.children.subarray(s.childStart[0], s.childStart[1])], [1, 3, 6]);
});

test('compactions, branch summaries and labels are marks of their own', () => {
  const t = columns(rowsOf([
    ['r', null, 'user'], ['a', 'r', 'assistant', { label: 'start' }], ['m', 'a', 'model_change'],
    ['k', 'm', 'compaction', { state: 'compaction' }], ['u', 'k', 'user'],
    ['x', 'u', 'assistant'], ['bs', 'x', 'branch_summary', { state: 'branch-summary' }], ['v', 'bs', 'user'],
  ]));
  const s = graphShape(t);
  assert.deepEqual([...s.mark], [MARK.turn, MARK.compaction, MARK.turn, MARK.branchSummary, MARK.turn]);
  assert.deepEqual([...s.start], [0, 3, 4, 6, 7]);
  assert.equal(s.labels.get(0), 'start');
  assert.equal(s.lanes, 1, 'a chain is one lane');
  // Entries before the first request are a node of their own, not a turn.
  const pre = graphShape(columns(rowsOf([['m', null, 'model_change'], ['u', 'm', 'user']])));
  assert.deepEqual([...pre.mark], [MARK.other, MARK.turn]);
});

test('the leaf\'s path: states, the leaf node, the path nodes back to the root', () => {
  const t = columns(BRANCHY);
  const s = graphShape(t);
  const p = graphPaint(t, s);
  assert.equal(p.leafNode, 5);
  assert.equal(p.leafRow, 8);
  assert.deepEqual([...p.onPath], [2, 0, 0, 2, 0, 2, 0]);
  assert.deepEqual([...p.state].map((k) => t.states[k]), ['kept', 'off-path', 'off-path', 'kept', 'off-path', 'kept', 'off-path']);
  // The path climbs from the leaf's node to a root through on-path nodes only.
  for (let v = p.leafNode; v !== NO_NODE; v = s.parent[v]) assert.ok(p.onPath[v]);
});

test('a turn shows the state holding most of its tokens, and a notch when part was pruned', () => {
  const t = columns(rowsOf([
    ['u', null, 'user', { state: 'summarized', tokens: 10 }],
    ['a', 'u', 'assistant', { state: 'summarized', tokens: 30 }],
    ['v', 'a', 'user', { state: 'kept', tokens: 5 }],
    ['w', 'v', 'toolResult', { state: 'pruned', tokens: 900 }],
    ['k', 'w', 'compaction', { state: 'compaction', tokens: 0 }],
  ]));
  const s = graphShape(t);
  const p = graphPaint(t, s);
  assert.deepEqual([...p.state].map((k) => t.states[k]), ['summarized', 'pruned', 'compaction']);
  assert.deepEqual([...p.pruned], [0, 1, 0]);
});

test('expanding a turn gives each of its entries a slot; collapsing takes them back', () => {
  const s = graphShape(columns(BRANCHY));
  const folded = graphSlots(s);
  assert.deepEqual([...folded], [0, 1, 2, 3, 4, 5, 6, 7]);
  const open = graphSlots(s, new Set([0, 3]));
  assert.deepEqual([...open], [0, 2, 3, 4, 6, 7, 8, 9]);
  assert.equal(nodeAtSlot(open, 1), 0);
  assert.equal(nodeAtSlot(open, 5), 3);
  assert.equal(nodeAtSlot(open, 9), -1);
  assert.equal(slotOfRow(s, open, 6), 5, 'c1 is the second slot of its turn');
  assert.equal(slotOfRow(s, folded, 6), 3, 'collapsed: the turn\'s slot');
});

test('arrows walk to the parent, the first child and the sibling branches', () => {
  const s = graphShape(columns(BRANCHY));
  assert.equal(walk(s, 3, 'up'), 0);
  assert.equal(walk(s, 0, 'up'), 0, 'a root stays');
  assert.equal(walk(s, 0, 'down'), 1);
  assert.equal(walk(s, 2, 'down'), 2, 'a leaf stays');
  assert.equal(walk(s, 1, 'right'), 3);
  assert.equal(walk(s, 3, 'right'), 6);
  assert.equal(walk(s, 6, 'right'), 6);
  assert.equal(walk(s, 6, 'left'), 3);
  assert.equal(walk(s, 4, 'right'), 5);
  // No sibling of its own: the nearest branch point above has one.
  assert.equal(walk(s, 2, 'right'), 3);
  assert.equal(walk(s, 5, 'right'), 6);
});

/** A long session: turns of three entries, a retried branch every `every` turns. */
function bigSession(turns, every) {
  const rows = [];
  const add = (id, parent, what, extra) => {
    rows.push({ id, parent, type: what === 'user' || what === 'assistant' ? 'message' : what, role: what, state: 'kept', ...extra });
    return rows.length - 1;
  };
  // Pre-order: a retry's abandoned turn comes first (it ends there), the main line goes on.
  let last = -1;
  for (let k = 0; k < turns; k++) {
    if (k > 0 && k % every === 0) {
      const u = add(`x${k}`, last, 'user', { state: 'off-path' });
      add(`y${k}`, u, 'assistant', { state: 'off-path' });
    }
    const u = add(`u${k}`, last, 'user');
    const a = add(`a${k}`, u, 'assistant');
    last = add(`t${k}`, a, 'toolResult');
  }
  rows[last].isLeaf = true;
  return rows;
}

test('the edges on screen are exactly those crossing it, whatever their length', () => {
  const t = columns(bigSession(3000, 7));
  const s = graphShape(t);
  assert.ok(s.count > 3000);
  for (const [first, last] of [[0, 10], [500, 700], [s.count - 5, s.count - 1], [BUCKET - 1, BUCKET], [0, s.count - 1]]) {
    const got = [];
    edgesAcross(s, first, last, (v) => got.push(v));
    const want = [];
    for (let v = 0; v < s.count; v++) if (s.parent[v] !== NO_NODE && s.parent[v] <= last && v >= first) want.push(v);
    assert.deepEqual(got.sort((a, b) => a - b), want, `nodes ${first}…${last}`);
  }
  // The abandoned retries each leave the main lane and end: two lanes at most.
  assert.equal(s.lanes, 2);
});

test('200,000 entries lay out in a few typed arrays, quickly', () => {
  const t = columns(bigSession(64_000, 9));
  assert.ok(t.n > 200_000);
  const started = performance.now();
  const s = graphShape(t);
  const p = graphPaint(t, s);
  const top = graphSlots(s);
  const ms = performance.now() - started;
  assert.equal(top[s.count], s.count);
  assert.equal(p.leafRow, t.n - 1);
  assert.ok(ms < 1500, `${ms.toFixed(0)} ms`);
});

/**
 * The lanes' promise on any tree: a branch's lane is not used by any node between its branch
 * point and its first node, and a first child stays in its parent's lane.
 */
function checkLanes(s) {
  for (let c = 0; c < s.count; c++) {
    const p = s.parent[c];
    if (p === NO_NODE) continue;
    if (s.children[s.childStart[p]] === c) {
      assert.equal(s.lane[c], s.lane[p], `first child ${c} keeps lane`);
      assert.equal(c, p + 1, 'a first child follows its parent');
    } else {
      for (let v = p + 1; v < c; v++) assert.notEqual(s.lane[v], s.lane[c], `node ${v} sits on the way to ${c}`);
    }
  }
}

test('fixtures with many branches: rows of a turn form a chain, lanes never collide, the path is whole', () => {
  for (const name of ['g-v3-branchy-s23', 'g-v2-branchy-s19', 'g-v3-branchy-s3']) {
    const { rows, leafId } = fixtureRows(name);
    const t = columns(rows);
    const s = graphShape(t);
    const p = graphPaint(t, s);
    for (let v = 0; v < s.count; v++) {
      for (let i = s.start[v] + 1; i < s.end[v]; i++) assert.equal(t.parent[i], i - 1, `${name}: row ${i} continues its turn`);
    }
    checkLanes(s);
    assert.ok(s.lanes > 1, `${name} branches`);
    assert.notEqual(p.leafNode, NO_NODE);
    assert.equal(rows[p.leafRow].id, leafId);
    for (let v = p.leafNode; v !== NO_NODE; v = s.parent[v]) assert.ok(p.onPath[v], `${name}: node ${v} on the path`);
    const onPath = [...p.onPath].filter(Boolean).length;
    let depth = 0;
    for (let v = p.leafNode; v !== NO_NODE; v = s.parent[v]) depth++;
    assert.equal(onPath, depth, `${name}: only the path's nodes are bright`);
    // Every state along the path is one the CLI reported for its rows.
    for (let v = p.leafNode; v !== NO_NODE; v = s.parent[v]) {
      const mine = new Set();
      for (let i = s.start[v]; i < s.end[v]; i++) mine.add(t.state[i]);
      assert.ok(mine.has(p.state[v]));
    }
  }
});

/**
 * A fixture's rows as `contextree tree --json` lists them (tests/ui/fixtures/graph-*.json,
 * written by the CLI: order, states, tokens, labels), their parents read from the session file.
 */
function fixtureRows(name) {
  const report = JSON.parse(readFileSync(new URL(`./fixtures/graph-${name}.json`, import.meta.url), 'utf8'));
  const parents = new Map();
  const file = readFileSync(new URL(`../fixtures/generated/${name}.jsonl`, import.meta.url), 'utf8');
  for (const line of file.split('\n')) {
    if (!line.trim()) continue;
    const e = JSON.parse(line);
    if (e.id) parents.set(e.id, e.parentId ?? null);
  }
  const at = new Map();
  const rows = report.rows.map((r, i) => {
    at.set(r.id, i);
    const parentId = parents.get(r.id);
    return {
      id: r.id,
      parent: parentId == null ? -1 : at.get(parentId),
      type: r.type,
      role: r.role ?? r.type,
      state: r.state,
      tokens: r.tokens,
      label: r.label,
      isLeaf: r.id === report.leafId,
    };
  });
  for (const r of rows) assert.ok(r.parent !== undefined, 'parents come before their children');
  return { rows, leafId: report.leafId };
}

test('the hover text names the turn, its size, tokens, state and first request', () => {
  const t = columns(BRANCHY);
  const shape = graphShape(t);
  const g = { shape, paint: graphPaint(t, shape), expanded: new Set() };
  assert.equal(hoverText(t, g, 5, 'try the other way'), 'turn c · 2 entries · 20 tokens (20) · kept\ntry the other way');
  const open = { ...g, expanded: new Set([3]) };
  assert.equal(hoverText(t, open, 6, ''), 'entry c1 · 10 tokens (10) · kept');
});

test('the nodes on screen follow the view: a slot above and below, none past the ends', async () => {
  const { visibleNodes, SLOT } = await import('../../ui/src/graph/draw.js');
  const top = graphSlots(graphShape(columns(BRANCHY)), new Set([0]));
  // 8 slots of SLOT world units; at zoom 1 from the top, a canvas 2 slots high shows slots 0-1.
  assert.deepEqual(visibleNodes(top, { scale: 1, ty: 0 }, 2 * SLOT), { first: 0, last: 2 });
  // Scrolled down by 5 slots: slots 5-6, with one slot of margin each side (nodes 3 and 4).
  assert.deepEqual(visibleNodes(top, { scale: 1, ty: -5 * SLOT }, 2 * SLOT), { first: 3, last: 6 });
  // Zoomed out to fit: every node.
  assert.deepEqual(visibleNodes(top, { scale: 0.01, ty: 0 }, 600), { first: 0, last: 6 });
  // Scrolled past the end: none.
  const none = visibleNodes(top, { scale: 1, ty: -100 * SLOT }, 2 * SLOT);
  assert.ok(none.last < none.first);
});
