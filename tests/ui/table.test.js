import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  NO_ROW, decodeTable, findRow, gutter, nextMatchIn, parentsIn, rowAt, rowList, rowsAtLines, shownRows, shownRowsAfter,
} from '../../ui/src/tree/table.js';
import { gutterText } from '../../ui/src/tree/format.js';
import { passesFilter, matchesQuery } from '../../ui/src/tree/filter.js';

// An encoder written from the format comment of crates/contextree-face/src/tree/wire.rs (the Rust
// side has its own decoder test): rows are `{ id, parent (row or -1), connector, indent,
// isLeaf, childless, onPath, state, entryType, kind, label, tokens, line }`. `leafOnly`: only
// the leaf's columns.
function encode(rows, leafId = null, { reading = 3, leafOnly = false } = {}) {
  const n = rows.length;
  const enc = new TextEncoder();
  const states = [...new Set(rows.map((r) => r.state))];
  const kinds = [];
  const kindCode = (r) => {
    let k = kinds.findIndex(([t, kind]) => t === r.entryType && kind === r.kind);
    if (k < 0) k = kinds.push([r.entryType, r.kind]) - 1;
    return k;
  };
  const codes = rows.map(kindCode);
  const conn = { none: 0, tee: 1, end: 2 };
  const parentOf = (r) => (r.parent < 0 ? NO_ROW : r.parent);
  const listed = rows.map((r, i) => parentOf(r) !== (i === 0 ? NO_ROW : i - 1));
  const flags = rows.map((r, i) => (r.isLeaf ? 1 : 0) | (r.onPath ? 4 : 0)
    | (leafOnly ? 0 : (r.childless ? 2 : 0) | (conn[r.connector] << 3) | (listed[i] ? 32 : 0)));
  const meta = enc.encode(JSON.stringify(leafOnly ? { leafId, states } : {
    leafId, states, kinds, labels: rows.flatMap((r, i) => (r.label != null ? [[i, r.label]] : [])),
  }));
  const varints = [];
  const varint = (v) => {
    let x = v;
    while (x >= 0x80) {
      varints.push((x % 0x80) | 0x80);
      x = Math.floor(x / 0x80);
    }
    varints.push(x);
  };
  let line = 0;
  rows.forEach((r, i) => {
    varint(r.tokens);
    const d = r.line - line;
    varint(d < 0 ? -2 * d - 1 : 2 * d);
    line = r.line;
    varint(r.id.length);
    varint(codes[i]);
  });
  const ids = enc.encode(rows.map((r) => r.id).join(''));
  const parents = rows.filter((_, i) => listed[i]).map(parentOf);
  const pad = (x) => Math.ceil(x / 4) * 4;
  const fixed = 48 + 2 * n + meta.length;
  const size = leafOnly ? fixed : pad(fixed) + 4 * parents.length + varints.length + ids.length;
  const buf = new ArrayBuffer(size);
  const leafRow = rows.findIndex((r) => r.isLeaf);
  new Uint32Array(buf, 0, 12).set([0x32525443, 3, leafOnly ? 0 : 1, n, leafRow < 0 ? NO_ROW : leafRow, reading,
    leafOnly ? 0 : parents.length, leafOnly ? 0 : varints.length, leafOnly ? 0 : ids.length, meta.length, 1500, 250]);
  const bytes = new Uint8Array(buf);
  bytes.set(rows.map((r) => states.indexOf(r.state)), 48);
  bytes.set(flags, 48 + n);
  bytes.set(meta, 48 + 2 * n);
  if (!leafOnly) {
    new Uint32Array(buf, pad(fixed), parents.length).set(parents);
    bytes.set(varints, pad(fixed) + 4 * parents.length);
    bytes.set(ids, pad(fixed) + 4 * parents.length + varints.length);
  }
  return buf;
}

/**
 * The CHANGES answer of the same format: the leaf's columns of `rows` at the rows `changed`
 * (ascending), for the held table of leaf `from` whose states list is `states`.
 */
function encodeChanges(rows, changed, leafId, from, states, { reading = 3 } = {}) {
  const m = changed.length;
  const meta = new TextEncoder().encode(JSON.stringify({ leafId, from, states }));
  const buf = new ArrayBuffer(48 + 6 * m + meta.length);
  const leafRow = rows.findIndex((r) => r.isLeaf);
  new Uint32Array(buf, 0, 12).set([0x32525443, 3, 2, rows.length, leafRow < 0 ? NO_ROW : leafRow, reading, m, 0, 0, meta.length, 10, 5]);
  new Uint32Array(buf, 48, m).set(changed);
  const bytes = new Uint8Array(buf);
  changed.forEach((r, k) => {
    bytes[48 + 4 * m + k] = states.indexOf(rows[r].state);
    bytes[48 + 5 * m + k] = (rows[r].isLeaf ? 1 : 0) | (rows[r].onPath ? 4 : 0);
  });
  bytes.set(meta, 48 + 6 * m);
  return buf;
}

/** Rows of a tree given as `[id, parentRow, connector]` (pre-order); the rest filled in. */
function tree(spec, extra = {}) {
  const rows = spec.map(([id, parent, connector], i) => ({
    id, parent, connector, indent: 0, isLeaf: false, childless: true, onPath: true, state: 'kept',
    entryType: 'message', kind: i % 2 ? 'assistant' : 'user', label: null, tokens: i * 10, line: i + 2,
    ...(extra[id] ?? {}),
  }));
  rows.forEach((r) => {
    if (r.parent >= 0) rows[r.parent].childless = false;
    r.indent = (r.parent >= 0 ? rows[r.parent].indent : 0) + (r.connector === 'none' ? 0 : 1);
  });
  return rows;
}

/** The guides of row `i` by their definition: a parent passes its own plus its connector's on. */
function guidesOf(rows, i) {
  const p = rows[i].parent;
  if (p < 0) return [];
  const g = guidesOf(rows, p);
  if (rows[p].connector === 'tee') return [...g, true];
  if (rows[p].connector === 'end') return [...g, false];
  return g;
}

// r1 ├ c1 ├ d1 (chain) └ c2 ; r2 └ ; the demo's shape in miniature, two roots.
const SPEC = [
  ['r1', -1, 'tee'], ['c1', 0, 'tee'], ['d1', 1, 'none'], ['c2', 0, 'end'], ['x😀', 3, 'none'], ['r2', -1, 'end'],
];

test('decodes every column and row', () => {
  const rows = tree(SPEC, { c2: { label: '<b>v2</b>', isLeaf: true }, r2: { state: 'off-path', onPath: false, entryType: 'label', kind: 'label' } });
  const t = decodeTable(encode(rows, 'c2'));
  assert.equal(t.n, 6);
  assert.equal(t.leafRow, 3);
  assert.equal(t.leafId, 'c2');
  assert.deepEqual(t.backendMs, { prepare: 1.5, encode: 0.25 });
  rows.forEach((r, i) => {
    const got = rowAt(t, i);
    assert.equal(got.id, r.id);
    assert.equal(got.parentId, r.parent < 0 ? null : rows[r.parent].id);
    for (const k of ['connector', 'indent', 'isLeaf', 'childless', 'onPath', 'state', 'entryType', 'kind', 'label', 'tokens', 'line']) {
      assert.equal(got[k], r[k], `${r.id}.${k}`);
    }
    assert.equal(got.gutter, gutterText({ guides: guidesOf(rows, i), connector: r.connector }));
  });
  assert.equal(rowAt(t, 2).gutter, '│ │ ');
  assert.equal(rowAt(t, 4).gutter, '│   ');
});

test('large tokens and lines that go back decode exactly', () => {
  const rows = tree([['a', -1, 'none'], ['b', 0, 'none'], ['c', 1, 'none']], {
    a: { tokens: 0xffffffff, line: 0xfffffff0 }, b: { tokens: 128, line: 2 }, c: { tokens: 127, line: 0xffffffff },
  });
  const t = decodeTable(encode(rows));
  assert.deepEqual(Array.from(t.tokens), [0xffffffff, 128, 127]);
  assert.deepEqual(Array.from(t.line), [0xfffffff0, 2, 0xffffffff]);
});

test("a leaf's columns replace the state and leaf flags of the table of the same reading", () => {
  const before = tree(SPEC, { c2: { isLeaf: true } });
  const t = decodeTable(encode(before, 'c2'));
  assert.equal(t.reading, 3);
  gutter(t, 4); // derived from the tree's columns: carried over
  const after = tree(SPEC, {
    c1: { isLeaf: true }, c2: { onPath: false, state: 'off-path' }, 'x😀': { onPath: false, state: 'off-path' },
  });
  const next = decodeTable(encode(after, 'c1', { leafOnly: true }), t);
  assert.equal(next.leafId, 'c1');
  assert.equal(next.leafRow, 1);
  assert.equal(next.up, t.up);
  assert.equal(next.ids, t.ids);
  after.forEach((r, i) => {
    const got = rowAt(next, i);
    for (const k of ['id', 'connector', 'indent', 'isLeaf', 'childless', 'onPath', 'state', 'tokens', 'line']) assert.equal(got[k], r[k], `${r.id}.${k}`);
  });
  // The table it was asked with is left as it was.
  assert.equal(rowAt(t, 3).isLeaf, true);
  assert.equal(rowAt(t, 3).state, 'kept');
  // Without that table (another reading, none at all), the leaf's columns are refused.
  const columns = encode(after, 'c1', { leafOnly: true, reading: 4 });
  assert.throws(() => decodeTable(columns, t), /without their table/);
  assert.throws(() => decodeTable(encode(after, 'c1', { leafOnly: true })), /without their table/);
});

test("a leaf's changed rows merge into the table of the leaf they come from", () => {
  const states = ['kept', 'off-path'];
  const before = tree(SPEC, { c2: { isLeaf: true }, r2: { state: 'off-path', onPath: false } });
  const t = decodeTable(encode(before, 'c2'));
  assert.deepEqual(t.states, states);
  const after = tree(SPEC, {
    c1: { isLeaf: true }, c2: { onPath: false, state: 'off-path' }, 'x😀': { onPath: false, state: 'off-path' }, r2: { state: 'off-path', onPath: false },
  });
  // c1 becomes the leaf; c2 (the old leaf) and x😀 leave the path.
  const next = decodeTable(encodeChanges(after, [1, 3, 4], 'c1', 'c2', states), t);
  assert.deepEqual(Array.from(next.changed), [1, 3, 4]);
  assert.equal(next.from, t.serial);
  assert.notEqual(next.serial, t.serial);
  assert.equal(next.leafId, 'c1');
  assert.equal(next.leafRow, 1);
  assert.equal(next.ids, t.ids);
  const whole = decodeTable(encode(after, 'c1'));
  after.forEach((r, i) => assert.deepEqual(rowAt(next, i), rowAt(whole, i), r.id));
  // The table it was asked with is left as it was.
  assert.equal(rowAt(t, 3).isLeaf, true);
  // Not the held table's leaf, reading or states list: refused.
  assert.throws(() => decodeTable(encodeChanges(after, [1], 'c1', 'r1', states), t), /without their table/);
  assert.throws(() => decodeTable(encodeChanges(after, [1], 'c1', 'c2', states, { reading: 4 }), t), /without their table/);
  assert.throws(() => decodeTable(encodeChanges(after, [1], 'c1', 'c2', ['off-path', 'kept']), t), /without their table/);
  assert.throws(() => decodeTable(encodeChanges(after, [1], 'c1', 'c2', states)), /without their table/);
});

test('shownRowsAfter a leaf change is shownRows of the new table', () => {
  // A comb with branches: row i hangs under row i-1, every third starts a branch off row i-3.
  const n = 300;
  const spec = Array.from({ length: n }, (_, i) => [`e${i}`, i === 0 ? -1 : i % 3 === 0 ? i - 3 : i - 1, i % 3 === 0 && i > 0 ? 'tee' : 'none']);
  const kinds = ['user', 'assistant', 'toolResult'];
  let seed = 7;
  const rand = (k) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % k;
  };
  const names = ['kept', 'off-path', 'metadata', 'summarized'];
  const rowsWith = (leaf) => tree(spec, Object.fromEntries(spec.map(([id], i) => {
    const state = names[rand(4)];
    return [id, {
      state, onPath: state !== 'off-path', isLeaf: i === leaf, kind: kinds[i % 3], label: i % 50 === 0 ? 'v' : null,
    }];
  })));
  const before = rowsWith(10);
  const t = decodeTable(encode(before, 'e10'));
  const states = t.states;
  for (const view of [{}, { filter: 'user' }, { filter: 'no-tools', showMetadata: true }, { filter: 'labelled' }]) {
    for (const [leaf, selected] of [[20, 'e5'], [40, 'e40'], [10, 'e299']]) {
      const after = rowsWith(leaf).map((r, i) => (states.includes(r.state) ? r : { ...before[i] }));
      after.forEach((r, i) => {
        r.isLeaf = i === leaf;
      });
      const changed = after.map((r, i) => i).filter((i) => after[i].state !== before[i].state || after[i].isLeaf !== before[i].isLeaf);
      const next = decodeTable(encodeChanges(after, changed, `e${leaf}`, 'e10', states), t);
      const keepBefore = new Set(['e10', 'e7']);
      const shown = rowList(t, shownRows(t, view, new Set(), keepBefore), [10, 7]);
      const keep = new Set([`e${leaf}`, selected]);
      const got = shownRowsAfter(next, shown, view, new Set(), keep);
      assert.deepEqual(Array.from(got), Array.from(shownRows(next, view, new Set(), keep)), JSON.stringify(view));
      // Only with the table it was merged from, and no folds or search.
      assert.equal(shownRowsAfter(next, rowList(next, shown.index, [10]), view, new Set(), keep), null);
      assert.equal(shownRowsAfter(next, shown, view, new Set(['e3']), keep), null);
      assert.equal(shownRowsAfter(next, shown, { ...view, query: 'e1' }, new Set(), keep), null);
    }
  }
  // Nothing comes or goes: the same array.
  const same = rowList(t, shownRows(t, {}, new Set(), new Set(['e10'])), [10]);
  const again = decodeTable(encodeChanges(before, [], 'e10', 'e10', states), t);
  assert.equal(shownRowsAfter(again, same, {}, new Set(), new Set(['e10'])), same.index);
});

test('accepts typed arrays, unaligned copies and plain byte arrays; refuses garbage', () => {
  const buf = encode(tree(SPEC));
  const bytes = new Uint8Array(buf);
  const shifted = new Uint8Array(bytes.length + 1);
  shifted.set(bytes, 1);
  for (const data of [bytes, shifted.subarray(1), Array.from(bytes)]) {
    assert.equal(rowAt(decodeTable(data), 4).id, 'x😀');
  }
  assert.throws(() => decodeTable(new ArrayBuffer(8)), /truncated/);
  assert.throws(() => decodeTable(bytes.slice(0, bytes.length - 1)), /expected/);
  assert.throws(() => decodeTable({ rows: [] }), /binary/);
  const wrong = bytes.slice();
  wrong[0] = 0;
  assert.throws(() => decodeTable(wrong), /unknown format/);
});

test('an empty table', () => {
  const t = decodeTable(encode([]));
  assert.equal(t.n, 0);
  assert.equal(t.leafId, null);
  assert.equal(shownRows(t).length, 0);
  assert.equal(rowList(t, shownRows(t)).find('x'), -1);
});

test('a deep comb draws only the innermost cells, without walking the whole depth', () => {
  // Every row a branch point: row k's tee child continues, an end child closes it.
  const spec = [['m0', -1, 'none']];
  for (let k = 1; k <= 5000; k++) spec.push([`m${k}`, spec.length - 1, 'tee']);
  const rows = tree(spec);
  const t = decodeTable(encode(rows));
  const deep = rows.length - 1;
  assert.equal(t.indent[deep], 5000);
  assert.equal(gutter(t, deep), gutterText({ guides: Array(4999).fill(true), connector: 'tee' }));
  assert.equal(gutter(t, 3, 12), gutterText({ guides: [true, true], connector: 'tee' }));
});

test('findRow matches whole ids only, even where ids run together', () => {
  const rows = tree([['a1', -1, 'none'], ['1b', 0, 'none'], ['b', 1, 'none'], ['a', 2, 'none']]);
  const t = decodeTable(encode(rows));
  assert.equal(findRow(t, 'a1'), 0);
  assert.equal(findRow(t, '1b'), 1);
  assert.equal(findRow(t, 'b'), 2);
  assert.equal(findRow(t, 'a'), 3);
  assert.equal(findRow(t, '11'), -1);
  assert.equal(findRow(t, 'a11b'), -1);
  assert.equal(findRow(t, ''), -1);
  assert.equal(findRow(t, null), -1);
});

test('shownRows filters, searches, folds and keeps as filter.js and fold.js do per row', () => {
  const extra = {
    c1: { entryType: 'message', kind: 'toolResult' },
    d1: { state: 'metadata', entryType: 'model_change', kind: 'model_change' },
    c2: { label: 'keep me' },
    r2: { entryType: 'message', kind: 'user' },
  };
  const rows = tree(SPEC, extra);
  const t = decodeTable(encode(rows));
  const ids = (idx) => Array.from(idx, (i) => rowAt(t, i).id);
  const previews = new Map([['x😀', 'Hello World'], ['c1', '']]);
  const preview = (id) => previews.get(id) ?? '';
  for (const filter of ['all', 'no-tools', 'user', 'labelled']) {
    for (const showMetadata of [false, true]) {
      for (const query of ['', 'hello', 'assistant', 'KEEP', 'r', 'tool result', 'model change']) {
        const expected = rows
          .filter((r) => passesFilter({ ...r, parentId: null }, filter, showMetadata)
            && matchesQuery(r, query, preview(r.id)))
          .map((r) => r.id);
        assert.deepEqual(ids(shownRows(t, { filter, showMetadata, query }, new Set(), new Set(), previews)), expected, `${filter} ${showMetadata} ${query}`);
      }
    }
  }
  // Kept ids stay whatever the filter; folded rows hide their whole subtree.
  assert.deepEqual(ids(shownRows(t, { filter: 'labelled' }, new Set(), new Set(['r2']))), ['c2', 'r2']);
  assert.deepEqual(ids(shownRows(t, { showMetadata: true }, new Set(['r1']))), ['r1', 'r2']);
  assert.deepEqual(ids(shownRows(t, { showMetadata: true }, new Set(['c1']))), ['r1', 'c1', 'c2', 'x😀', 'r2']);
});

test('rowList finds positions, nextMatchIn wraps, parentsIn knows who has children', () => {
  const rows = tree(SPEC);
  const t = decodeTable(encode(rows));
  const list = rowList(t, shownRows(t, {}, new Set(['c1'])));
  assert.deepEqual(Array.from({ length: list.length }, (_, k) => list.id(k)), ['r1', 'c1', 'c2', 'x😀', 'r2']);
  assert.equal(list.find('c2'), 2);
  assert.equal(list.find('d1'), -1);
  assert.equal(list.at(4).id, 'r2');
  assert.equal(list.at(5), undefined);
  assert.equal(list.id(-1), null);
  assert.equal(nextMatchIn(list, 'r2', 0), 4);
  assert.equal(nextMatchIn(list, 'r1', 4), 0);
  assert.equal(nextMatchIn(list, 'user', 0), 3);
  assert.equal(nextMatchIn(list, 'user', 3, new Map(), -1), 0);
  assert.equal(nextMatchIn(list, 'hello', 0, new Map([['c1', 'Hello']])), 1);
  assert.equal(nextMatchIn(list, 'nothing', 0), -1);
  assert.equal(nextMatchIn(list, '  ', 0), -1);
  const parents = parentsIn(t);
  assert.deepEqual(['r1', 'c1', 'd1', 'c2', 'x😀', 'r2', 'zz'].map((id) => parents.has(id)), [true, true, false, true, false, false, false]);
  assert.deepEqual(rowsAtLines(t, [3, 7, 99]), [{ id: 'c1', line: 3 }, { id: 'r2', line: 7 }]);
});

test('search over ids whose lower case is longer (İ) still finds the right rows', () => {
  const rows = tree([['İa', -1, 'none'], ['Bb', 0, 'none'], ['cİ', 1, 'none']]);
  const t = decodeTable(encode(rows));
  const ids = (query) => Array.from(shownRows(t, { query }), (i) => rowAt(t, i).id);
  assert.deepEqual(ids('bb'), ['Bb']);
  assert.deepEqual(ids('i̇a'), ['İa']);
  assert.deepEqual(ids('c'), ['cİ']);
  const plain = decodeTable(encode(tree([['Aa', -1, 'none'], ['bB', 0, 'none']])));
  assert.deepEqual(Array.from(shownRows(plain, { query: 'BB' }), (i) => rowAt(plain, i).id), ['bB']);
});
