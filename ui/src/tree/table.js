// The tree as columns: decodes `tree_table`'s binary buffer (src-tauri/src/commands/tree/wire.rs,
// keep the two in step) into typed arrays viewed in place, and answers what the tree pane asks
// of a row without ever making an object per row: 200,000 rows cost a few typed arrays, and
// only the rows on screen become objects. Guides are not sent; `gutter` draws them from the
// parents and connectors, walking at most `maxCells` branch points up. Pure (node --test).

import { entryKind, entryLabel } from '../entries/format.js';

/** The parent of a root, the leaf of an empty session. */
export const NO_ROW = 0xffffffff;
const MAGIC = 0x31525443; // `CTR1`, little-endian
const VERSION = 1;
const HEADER = 32;
const IS_LEAF = 1;
const CHILDLESS = 2;
const ON_PATH = 4;
const CONNECTORS = ['none', 'tee', 'end'];
const pad4 = (n) => Math.ceil(n / 4) * 4;

function bytesOf(data) {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (Array.isArray(data)) return Uint8Array.from(data); // IPC without the binary channel
  throw new Error('tree table: expected binary data');
}

/**
 * Decodes a `tree_table` answer (an ArrayBuffer, a typed array or an array of byte values) into
 * `{ n, leafRow, leafId, backendMs: { prepare, encode }, parent, indent, tokens, line, idEnd, kind, state, flags, ids, states,
 * kinds: [{ entryType, kind }], labels: Map(row → label) }`. Throws on anything else.
 */
export function decodeTable(data) {
  let bytes = bytesOf(data);
  // Uint32Array views need 4-byte alignment: copy the rare unaligned buffer.
  if (bytes.byteOffset % 4 !== 0) bytes = bytes.slice();
  if (bytes.byteLength < HEADER) throw new Error('tree table: truncated header');
  const { buffer } = bytes;
  const base = bytes.byteOffset;
  const head = new Uint32Array(buffer, base, 8);
  if (head[0] !== MAGIC || head[1] !== VERSION) throw new Error(`tree table: unknown format ${head[0]}/${head[1]}`);
  const [, , n, leafRow, idBytes, metaBytes, prepareUs, encodeUs] = head;
  const size = HEADER + 24 * n + pad4(2 * n) + pad4(idBytes) + metaBytes;
  if (bytes.byteLength !== size) throw new Error(`tree table: ${bytes.byteLength} bytes, expected ${size}`);
  let at = base + HEADER;
  const column = () => {
    const c = new Uint32Array(buffer, at, n);
    at += 4 * n;
    return c;
  };
  const parent = column();
  const indent = column();
  const tokens = column();
  const line = column();
  const idEnd = column();
  const kind = column();
  const state = new Uint8Array(buffer, at, n);
  const flags = new Uint8Array(buffer, at + n, n);
  at += pad4(2 * n);
  const utf8 = new TextDecoder();
  const ids = utf8.decode(new Uint8Array(buffer, at, idBytes));
  at += pad4(idBytes);
  const meta = JSON.parse(utf8.decode(new Uint8Array(buffer, at, metaBytes)));
  return {
    n, leafRow, leafId: meta.leafId ?? null, backendMs: { prepare: prepareUs / 1000, encode: encodeUs / 1000 }, parent, indent, tokens, line, idEnd, kind, state, flags, ids,
    states: meta.states,
    kinds: meta.kinds.map(([entryType, k]) => ({ entryType, kind: k })),
    labels: new Map(meta.labels),
  };
}

/** The id of table row `i`. */
export function rowId(t, i) {
  return t.ids.slice(i === 0 ? 0 : t.idEnd[i - 1], t.idEnd[i]);
}

/** The connector name of row `i`: `none`, `tee`, `end`. */
export const connectorOf = (t, i) => CONNECTORS[(t.flags[i] >> 3) & 3] ?? 'none';

/** Per row, its nearest strict ancestor with a connector (the branch point its last guide is for). */
function branchUp(t) {
  if (!t.up) {
    const up = new Uint32Array(t.n);
    for (let i = 0; i < t.n; i++) {
      const p = t.parent[i];
      up[i] = p === NO_ROW ? NO_ROW : (t.flags[p] >> 3) & 3 ? p : up[p];
    }
    t.up = up;
  }
  return t.up;
}

/**
 * `contextree tree`'s gutter of row `i` in two-character cells (`│ ` per guide, then `├─` or
 * `└─`), the same text as `gutterText` of format.js; past `maxCells` cells only the innermost
 * are drawn after a `⋯ ` cell. Costs at most `maxCells` steps, however deep the row.
 */
export function gutter(t, i, maxCells = 12) {
  const total = t.indent[i];
  const cut = total > maxCells;
  let want = cut ? maxCells - 1 : total;
  const cells = [];
  const own = (t.flags[i] >> 3) & 3;
  if (own && want > 0) {
    cells.push(own === 1 ? '├─' : '└─');
    want--;
  }
  const up = branchUp(t);
  for (let p = up[i]; want > 0 && p !== NO_ROW; p = up[p], want--) {
    cells.push(((t.flags[p] >> 3) & 3) === 1 ? '│ ' : '  ');
  }
  cells.reverse();
  return (cut ? '⋯ ' : '') + cells.join('');
}

/** Row `i` as the object the views use (the old JSON row, with `gutter` instead of `guides`). */
export function rowAt(t, i) {
  const p = t.parent[i];
  const k = t.kinds[t.kind[i]];
  const f = t.flags[i];
  return {
    index: i,
    id: rowId(t, i),
    parentId: p === NO_ROW ? null : rowId(t, p),
    indent: t.indent[i],
    connector: connectorOf(t, i),
    gutter: gutter(t, i),
    isLeaf: (f & IS_LEAF) !== 0,
    childless: (f & CHILDLESS) !== 0,
    onPath: (f & ON_PATH) !== 0,
    state: t.states[t.state[i]],
    entryType: k.entryType,
    kind: k.kind,
    label: t.labels.get(i) ?? null,
    tokens: t.tokens[i],
    line: t.line[i],
  };
}

/** The table row of entry `id`, or -1: a native substring search, checked against the id ends. */
export function findRow(t, id) {
  if (id == null || id === '') return -1;
  for (let pos = t.ids.indexOf(id); pos >= 0; pos = t.ids.indexOf(id, pos + 1)) {
    // The first row whose id ends after `pos`: the one that starts there, if any does.
    let lo = 0;
    let hi = t.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (t.idEnd[mid] <= pos) lo = mid + 1;
      else hi = mid;
    }
    const start = lo === 0 ? 0 : t.idEnd[lo - 1];
    if (lo < t.n && start === pos && t.idEnd[lo] === pos + id.length) return lo;
  }
  return -1;
}

/** Per kind code: the filter class (`entryKind`) and the lower-cased search text of the kind. */
function kindInfo(t) {
  if (!t.kindInfo) {
    t.kindInfo = t.kinds.map(({ entryType, kind }) => {
      const entry = { entryType, role: kind };
      return {
        cls: entryKind(entry),
        hay: [kind, entryLabel(entry), entryType].join('\n').toLowerCase(),
      };
    });
  }
  return t.kindInfo;
}

/** Search words of `query` (lower case); empty: no search. */
export const queryWords = (query) => String(query).toLowerCase().split(/\s+/).filter(Boolean);

/** The ids in lower case, when lower-casing keeps their lengths (else `null`: per row). */
function idsLower(t) {
  if (t.idsLower === undefined) {
    const lower = t.ids.toLowerCase();
    t.idsLower = lower.length === t.ids.length ? lower : null;
  }
  return t.idsLower;
}

/**
 * A matcher of the search `words` for table `t`: `(i, preview) → boolean`, whether row `i`
 * matches every word somewhere in its id, role, kind label, entry type, label or `preview`
 * text (filter.js's `matchesQuery` over columns). Which words the kinds match is decided once
 * per kind, not per row.
 */
export function rowMatcher(t, words) {
  if (words.length === 0) return () => true;
  const byKind = kindInfo(t).map(({ hay }) => words.map((w) => hay.includes(w)));
  const lower = idsLower(t);
  return (i, preview = '') => {
    const kind = byKind[t.kind[i]];
    let id = null;
    let rest = null;
    for (let k = 0; k < words.length; k++) {
      if (kind[k]) continue;
      const w = words[k];
      if (id === null) id = lower ? lower.slice(i === 0 ? 0 : t.idEnd[i - 1], t.idEnd[i]) : rowId(t, i).toLowerCase();
      if (id.includes(w)) continue;
      if (rest === null) rest = `${(t.labels.get(i) ?? '').toLowerCase()}\n${String(preview ?? '').toLowerCase()}`;
      if (!rest.includes(w)) return false;
    }
    return true;
  };
}

/** Whether row `i` passes `filter` (filter.js's `passesFilter` over columns). */
export function passesRow(t, i, filter, showMetadata = false) {
  if (!showMetadata && t.states[t.state[i]] === 'metadata') return false;
  const cls = kindInfo(t)[t.kind[i]].cls;
  switch (filter) {
    case 'no-tools':
      return cls !== 'tool';
    case 'user':
      return cls === 'user';
    case 'labelled':
      return (t.labels.get(i) ?? '') !== '';
    default:
      return true;
  }
}

/**
 * The table rows to show, in order, as a Uint32Array: rows under a folded row (`folded`: a set
 * of ids) are hidden; of the rest, those passing `view` (`{ filter, showMetadata, query }`), and
 * always the `keep` ids (the leaf, the selection). `preview(id)` is the preview text loaded.
 *
 * @param {any} t
 * @param {{ filter?: string, showMetadata?: boolean, query?: string }} [view]
 * @param {Set<string>} [folded]
 * @param {Set<string>} [keep]
 * @param {(id: string) => string} [preview]
 */
export function shownRows(t, { filter = 'all', showMetadata = false, query = '' } = {}, folded = new Set(), keep = new Set(), preview = () => '') {
  const foldedRows = new Set();
  for (const id of folded) {
    const r = findRow(t, id);
    if (r >= 0) foldedRows.add(r);
  }
  const keepRows = new Set();
  for (const id of keep) {
    const r = findRow(t, id);
    if (r >= 0) keepRows.add(r);
  }
  const words = queryWords(query);
  const matches = rowMatcher(t, words);
  const hidden = foldedRows.size > 0 ? new Uint8Array(t.n) : null;
  const out = new Uint32Array(t.n);
  let count = 0;
  for (let i = 0; i < t.n; i++) {
    if (hidden) {
      const p = t.parent[i];
      if (p !== NO_ROW && (foldedRows.has(p) || hidden[p])) {
        hidden[i] = 1;
        continue;
      }
    }
    if (keepRows.has(i)
      || (passesRow(t, i, filter, showMetadata) && (words.length === 0 || matches(i, preview(rowId(t, i)))))) {
      out[count++] = i;
    }
  }
  return out.subarray(0, count);
}

/**
 * The rows on screen, as a list: `length`, `at(k)` (a row object), `id(k)`, `find(id)` (the
 * position of entry `id`, or -1), `row(k)` (the table row). `index` holds table rows, ascending.
 */
export function rowList(t, index) {
  const table = t ?? { n: 0 };
  const rows = index ?? new Uint32Array(0);
  return {
    table,
    index: rows,
    length: rows.length,
    row: (k) => rows[k],
    at: (k) => (k >= 0 && k < rows.length ? rowAt(table, rows[k]) : undefined),
    id: (k) => (k >= 0 && k < rows.length ? rowId(table, rows[k]) : null),
    find(id) {
      const r = t ? findRow(t, id) : -1;
      if (r < 0) return -1;
      let lo = 0;
      let hi = rows.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (rows[mid] < r) lo = mid + 1;
        else hi = mid;
      }
      return lo < rows.length && rows[lo] === r ? lo : -1;
    },
  };
}

/** The empty list (no session yet). */
export const NO_ROWS = rowList(null, null);

/**
 * The next position in `list` after `from` whose row matches `query`, wrapping; -1 when none
 * does. `step` -1 searches backwards (filter.js's `nextMatch` over columns).
 *
 * @param {any} list
 * @param {string} query
 * @param {number} from
 * @param {(id: string) => string} [preview]
 * @param {number} [step]
 */
export function nextMatchIn(list, query, from, preview = () => '', step = 1) {
  const n = list.length;
  const words = queryWords(query);
  if (n === 0 || words.length === 0) return -1;
  const matches = rowMatcher(list.table, words);
  for (let k = 1; k <= n; k++) {
    const i = (((from + step * k) % n) + n) % n;
    const r = list.row(i);
    if (matches(r, preview(rowId(list.table, r)))) return i;
  }
  return -1;
}

/** `{ has(id) }`: whether entry `id` has children (fold.js's `parentsOf` over columns). */
export function parentsIn(t) {
  return {
    has(id) {
      const r = t ? findRow(t, id) : -1;
      return r >= 0 && (t.flags[r] & CHILDLESS) === 0;
    },
  };
}

/** `[{ id, line }]` of the rows at `lines` (the diagnostics' lines): for the problems panel. */
export function rowsAtLines(t, lines) {
  const want = new Set(lines);
  const out = [];
  if (!t || want.size === 0) return out;
  for (let i = 0; i < t.n; i++) if (want.has(t.line[i])) out.push({ id: rowId(t, i), line: t.line[i] });
  return out;
}
