// The tree as columns: decodes `tree_table`'s binary buffer (crates/contextree-face/src/tree/wire.rs,
// keep the two in step) into typed arrays, and answers what the tree pane asks of a row without
// ever making an object per row: 200,000 rows cost a few typed arrays, and only the rows on
// screen become objects. Guides are not sent; `gutter` draws them from the parents and
// connectors, walking at most `maxCells` branch points up. Pure (node --test).

import { entryKind, entryLabel } from '../entries/format.js';
import { lowerBound } from '../sorted.js';

/** The parent of a root, the leaf of an empty session. */
export const NO_ROW = 0xffffffff;
const MAGIC = 0x32525443; // `CTR2`, little-endian
const VERSION = 3;
const HEADER = 48;
const WHOLE = 1;
const CHANGES = 2;
const IS_LEAF = 1;
const CHILDLESS = 2;
const ON_PATH = 4;
const PARENT_LISTED = 32;
/** The flag bits a leaf decides; the others are the tree's. */
const LEAF_BITS = IS_LEAF | ON_PATH;
const CONNECTORS = ['none', 'tee', 'end'];
const pad4 = (n) => Math.ceil(n / 4) * 4;
/** Numbers the tables decoded, so that a leaf's changed rows name the table they apply to. */
let serials = 0;

function bytesOf(data) {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (Array.isArray(data)) return Uint8Array.from(data); // IPC without the binary channel
  throw new Error('tree table: expected binary data');
}

/**
 * The rows' parents, indents, tokens, lines, id ends and kinds from the whole table's listed
 * parents and varints (`at`: where the parents start).
 */
function structure(bytes, at, n, flags, listed, varintBytes) {
  const parent = new Uint32Array(n);
  const indent = new Uint32Array(n);
  const tokens = new Uint32Array(n);
  const line = new Uint32Array(n);
  const idEnd = new Uint32Array(n);
  const kind = new Uint32Array(n);
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  let p = at;
  let v = at + 4 * listed;
  const end = v + varintBytes;
  // Unsigned LEB128; values reach 2^33 (a line's zigzag difference): no 32-bit shifts.
  const next = () => {
    let b = bytes[v++];
    if (b < 0x80) return b;
    let value = b & 0x7f;
    let scale = 0x80;
    do {
      b = bytes[v++];
      value += (b & 0x7f) * scale;
      scale *= 0x80;
    } while (b >= 0x80);
    return value;
  };
  let lineAt = 0;
  let idAt = 0;
  for (let i = 0; i < n; i++) {
    const f = flags[i];
    let up;
    if (f & PARENT_LISTED) {
      up = view.getUint32(p, true);
      p += 4;
    } else {
      up = i === 0 ? NO_ROW : i - 1;
    }
    parent[i] = up;
    indent[i] = (up === NO_ROW ? 0 : indent[up]) + ((f >> 3) & 3 ? 1 : 0);
    tokens[i] = next();
    const z = next();
    lineAt += z % 2 === 1 ? -(z + 1) / 2 : z / 2;
    line[i] = lineAt;
    idAt += next();
    idEnd[i] = idAt;
    kind[i] = next();
  }
  if (v !== end || p !== at + 4 * listed) throw new Error('tree table: columns do not match their sizes');
  return {
    parent, indent, tokens, line, idEnd, kind, end,
  };
}

/**
 * A leaf's changed rows (`m` of them, after the header) merged into copies of `previous`'s
 * state and flags columns: `{ state, flags, changed, from }` (`changed`: the rows, ascending;
 * `from`: the serial of `previous`), or throws when `previous` is not the table they are for.
 */
function mergeChanges(bytes, m, meta, previous, { n, reading }) {
  if (!previous || previous.reading !== reading || previous.n !== n || previous.leafId !== (meta.from ?? null)
    || previous.states.join('\n') !== meta.states.join('\n')) {
    throw new Error('tree table: a leaf\'s changed rows without their table');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const changed = new Uint32Array(m);
  for (let k = 0; k < m; k++) changed[k] = view.getUint32(HEADER + 4 * k, true);
  const state = previous.state.slice();
  const flags = previous.flags.slice();
  const states = HEADER + 4 * m;
  for (let k = 0; k < m; k++) {
    const r = changed[k];
    if (r >= n) throw new Error('tree table: a changed row past the table');
    state[r] = bytes[states + k];
    flags[r] = (flags[r] & ~LEAF_BITS) | bytes[states + m + k];
  }
  return {
    state, flags, changed, from: previous.serial,
  };
}

/**
 * Decodes a `tree_table` answer (an ArrayBuffer, a typed array or an array of byte values) into
 * `{ n, leafRow, leafId, reading, serial, backendMs: { prepare, encode }, parent, indent, tokens,
 * line, idEnd, kind, state, flags, ids, states, kinds: [{ entryType, kind }], labels: Map(row →
 * label) }`. An answer holding only the leaf's columns, or only the rows they change, is merged
 * into `previous`, the table of the same reading it was asked with; the latter also gives
 * `changed` (those rows, ascending) and `from` (`previous.serial`). Throws on anything else.
 */
export function decodeTable(data, previous = null) {
  const bytes = bytesOf(data);
  if (bytes.byteLength < HEADER) throw new Error('tree table: truncated header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const word = (k) => view.getUint32(4 * k, true);
  if (word(0) !== MAGIC || word(1) !== VERSION) throw new Error(`tree table: unknown format ${word(0)}/${word(1)}`);
  const whole = word(2) === WHOLE;
  const n = word(3);
  const [leafRow, reading, listed, varintBytes, idBytes, metaBytes, prepareUs, encodeUs] = [4, 5, 6, 7, 8, 9, 10, 11].map(word);
  const backendMs = { prepare: prepareUs / 1000, encode: encodeUs / 1000 };
  const utf8 = new TextDecoder();
  if (word(2) === CHANGES) {
    const at = HEADER + 6 * listed;
    if (bytes.byteLength !== at + metaBytes) throw new Error(`tree table: ${bytes.byteLength} bytes, expected ${at + metaBytes}`);
    const meta = JSON.parse(utf8.decode(bytes.subarray(at, at + metaBytes)));
    const merged = mergeChanges(bytes, listed, meta, previous, { n, reading });
    return {
      ...previous, n, leafRow, reading, serial: ++serials, leafId: meta.leafId ?? null, backendMs, states: meta.states, ...merged,
    };
  }
  const fixed = HEADER + 2 * n + metaBytes;
  const size = whole ? pad4(fixed) + 4 * listed + varintBytes + idBytes : fixed;
  if (bytes.byteLength !== size) throw new Error(`tree table: ${bytes.byteLength} bytes, expected ${size}`);
  // Copies: the answer's buffer can go, and a later leaf's columns replace these.
  const state = bytes.slice(HEADER, HEADER + n);
  const flags = bytes.slice(HEADER + n, HEADER + 2 * n);
  const meta = JSON.parse(utf8.decode(bytes.subarray(HEADER + 2 * n, fixed)));
  const leaf = {
    n, leafRow, reading, serial: ++serials, leafId: meta.leafId ?? null, backendMs, state, states: meta.states, changed: null, from: null,
  };
  if (!whole) {
    if (!previous || previous.reading !== reading || previous.n !== n) throw new Error('tree table: a leaf\'s columns without their table');
    for (let i = 0; i < n; i++) flags[i] |= previous.flags[i] & ~LEAF_BITS;
    // The tree's columns and what was derived from them (`up`, kinds' search text) carry over.
    return { ...previous, ...leaf, flags };
  }
  const cols = structure(bytes, pad4(fixed), n, flags, listed, varintBytes);
  return {
    ...leaf,
    parent: cols.parent,
    indent: cols.indent,
    tokens: cols.tokens,
    line: cols.line,
    idEnd: cols.idEnd,
    kind: cols.kind,
    flags,
    ids: utf8.decode(bytes.subarray(cols.end, cols.end + idBytes)),
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
  // The leaf's row is known: no search of the ids text (the first one costs tens of ms on
  // 200,000 ids, and the leaf is looked up on every open and leaf change).
  if (id === t.leafId && t.leafRow !== undefined && t.leafRow !== NO_ROW) return t.leafRow;
  for (let pos = t.ids.indexOf(id); pos >= 0; pos = t.ids.indexOf(id, pos + 1)) {
    // The first row whose id ends after `pos`: the one that starts there, if any does.
    const lo = rowAtPosition(t, pos);
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

/** The row whose id holds UTF-16 position `pos` of the ids text. */
function rowAtPosition(t, pos) {
  let lo = 0;
  let hi = t.n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (t.idEnd[mid] <= pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Per row, whether `w` (lower case) is in its id, label or loaded preview text (`previews`:
 * id → text): found by searching the ids text and the few labels and previews once, never by
 * looking at every row.
 */
function textHits(t, w, previews) {
  const hit = new Uint8Array(t.n);
  const lower = idsLower(t);
  if (lower !== null) {
    for (let pos = lower.indexOf(w); pos >= 0;) {
      const r = rowAtPosition(t, pos);
      if (r >= t.n) break;
      // Within one id only; the next row to look at starts after this one.
      if (pos + w.length <= t.idEnd[r]) {
        hit[r] = 1;
        pos = lower.indexOf(w, t.idEnd[r]);
      } else {
        pos = lower.indexOf(w, pos + 1);
      }
    }
  } else {
    for (let i = 0; i < t.n; i++) if (rowId(t, i).toLowerCase().includes(w)) hit[i] = 1;
  }
  for (const [row, label] of t.labels) if (String(label ?? '').toLowerCase().includes(w)) hit[row] = 1;
  for (const [id, text] of previews) {
    if (!String(text ?? '').toLowerCase().includes(w)) continue;
    const r = findRow(t, id);
    if (r >= 0) hit[r] = 1;
  }
  return hit;
}

/**
 * A matcher of the search `words` for table `t`: `(i) → boolean`, whether row `i` matches
 * every word somewhere in its id, role, kind label, entry type, label or preview text
 * (`previews`: id → the text loaded; filter.js's `matchesQuery` over columns). Which words the
 * kinds match is decided once per kind, the rest once per word over the text that holds it.
 */
export function rowMatcher(t, words, previews = new Map()) {
  if (words.length === 0) return () => true;
  const byKind = kindInfo(t).map(({ hay }) => words.map((w) => hay.includes(w)));
  const hits = words.map(() => null);
  return (i) => {
    const kind = byKind[t.kind[i]];
    for (let k = 0; k < words.length; k++) {
      if (kind[k]) continue;
      if (hits[k] === null) hits[k] = textHits(t, words[k], previews);
      if (hits[k][i] !== 1) return false;
    }
    return true;
  };
}

/** Whether a row of kind class `cls` passes `filter` (labels are checked per row). */
function classPasses(cls, filter) {
  switch (filter) {
    case 'no-tools':
      return cls !== 'tool';
    case 'user':
      return cls === 'user';
    default:
      return true;
  }
}

/**
 * What `filter` lets through, decided once per state and per kind instead of per row:
 * `{ state, kind }` (1 = passes, by code) and whether a row needs a label.
 */
function filterCodes(t, filter, showMetadata) {
  return {
    state: Uint8Array.from(t.states, (name) => (showMetadata || name !== 'metadata' ? 1 : 0)),
    kind: Uint8Array.from(kindInfo(t), ({ cls }) => (classPasses(cls, filter) ? 1 : 0)),
    labelled: filter === 'labelled',
  };
}

/** Whether row `i` of table `t` passes the filter `codes` (`filterCodes`'). */
function passesCodes(t, codes, i) {
  return codes.state[t.state[i]] === 1 && codes.kind[t.kind[i]] === 1 && (!codes.labelled || (t.labels.get(i) ?? '') !== '');
}

/** Whether row `i` passes `filter` (filter.js's `passesFilter` over columns). */
export function passesRow(t, i, filter, showMetadata = false) {
  return passesCodes(t, filterCodes(t, filter, showMetadata), i);
}

/**
 * The table rows to show, in order, as a Uint32Array: rows under a folded row (`folded`: a set
 * of ids) are hidden; of the rest, those passing `view` (`{ filter, showMetadata, query }`), and
 * always the `keep` ids (the leaf, the selection). `previews` maps ids to the preview text loaded.
 *
 * @param {any} t
 * @param {{ filter?: string, showMetadata?: boolean, query?: string }} [view]
 * @param {Set<string>} [folded]
 * @param {Set<string>} [keep]
 * @param {Map<string, string>} [previews]
 */
export function shownRows(t, { filter = 'all', showMetadata = false, query = '' } = {}, folded = new Set(), keep = new Set(), previews = new Map()) {
  const foldedRows = new Set();
  for (const id of folded) {
    const r = findRow(t, id);
    if (r >= 0) foldedRows.add(r);
  }
  const keepRows = new Set(keptRows(t, keep));
  const words = queryWords(query);
  const matches = rowMatcher(t, words, previews);
  const codes = filterCodes(t, filter, showMetadata);
  const { parent } = t;
  const hidden = foldedRows.size > 0 ? new Uint8Array(t.n) : null;
  // Rows kept whatever the filter: a byte per row beats a Set lookup per row.
  const kept = keepRows.size > 0 ? new Uint8Array(t.n) : null;
  for (const r of keepRows) kept[r] = 1;
  const out = new Uint32Array(t.n);
  let count = 0;
  for (let i = 0; i < t.n; i++) {
    if (hidden) {
      const p = parent[i];
      if (p !== NO_ROW && (foldedRows.has(p) || hidden[p])) {
        hidden[i] = 1;
        continue;
      }
    }
    if ((kept !== null && kept[i] === 1) || (passesCodes(t, codes, i) && (words.length === 0 || matches(i)))) {
      out[count++] = i;
    }
  }
  return out.subarray(0, count);
}

/** The table rows of the `keep` ids (a set) that it has. */
export function keptRows(t, keep) {
  const out = [];
  for (const id of keep) {
    const r = t ? findRow(t, id) : -1;
    if (r >= 0) out.push(r);
  }
  return out;
}

/**
 * `shownRows` after a leaf change, from `before` (the `rowList` shown of the table `t` was
 * merged from: `t.from`): a row's place in the filter depends on its state and kind, so only
 * the rows whose state changed (`t.changed`) and those kept before or now can come or go; the
 * others are copied. `null` when that does not hold: no changed rows, another table, folds
 * (the rule is the same, but kept simple) or a search (previews may have arrived since).
 * The same array as `before.index` when no row comes or goes.
 *
 * @param {any} t
 * @param {any} before
 * @param {{ filter?: string, showMetadata?: boolean, query?: string }} [view]
 * @param {Set<string>} [folded]
 * @param {Set<string>} [keep]
 */
export function shownRowsAfter(t, before, { filter = 'all', showMetadata = false, query = '' } = {}, folded = new Set(), keep = new Set()) {
  if (!t?.changed || !before?.keepRows || before.table.serial !== t.from || folded.size > 0 || queryWords(query).length > 0) return null;
  const codes = filterCodes(t, filter, showMetadata);
  const kept = keptRows(t, keep);
  const look = Uint32Array.from(new Set([...t.changed, ...before.keepRows, ...kept])).sort();
  const passes = (i) => kept.includes(i) || passesCodes(t, codes, i);
  const old = before.index;
  const out = new Uint32Array(old.length + look.length);
  let count = 0;
  let a = 0;
  let moved = false;
  for (const r of look) {
    // The shown rows before `r` stay: copied as one run.
    const b = lowerBound(old, r, a);
    out.set(old.subarray(a, b), count);
    count += b - a;
    a = b;
    const was = a < old.length && old[a] === r;
    if (was) a++;
    const is = passes(r);
    if (is) out[count++] = r;
    if (is !== was) moved = true;
  }
  if (!moved) return old;
  out.set(old.subarray(a), count);
  count += old.length - a;
  return out.subarray(0, count);
}

/**
 * The rows on screen, as a list: `length`, `at(k)` (a row object), `id(k)`, `find(id)` (the
 * position of entry `id`, or -1), `row(k)` (the table row). `index` holds table rows, ascending;
 * `keepRows` the rows it was made to keep whatever the filter (for `shownRowsAfter`).
 */
export function rowList(t, index, keepRows = null) {
  const table = t ?? { n: 0 };
  const rows = index ?? new Uint32Array(0);
  return {
    table,
    keepRows,
    index: rows,
    length: rows.length,
    row: (k) => rows[k],
    at: (k) => (k >= 0 && k < rows.length ? rowAt(table, rows[k]) : undefined),
    id: (k) => (k >= 0 && k < rows.length ? rowId(table, rows[k]) : null),
    find(id) {
      const r = t ? findRow(t, id) : -1;
      if (r < 0) return -1;
      const lo = lowerBound(rows, r);
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
 * @param {Map<string, string>} [previews]
 * @param {number} [step]
 */
export function nextMatchIn(list, query, from, previews = new Map(), step = 1) {
  const n = list.length;
  const words = queryWords(query);
  if (n === 0 || words.length === 0) return -1;
  const matches = rowMatcher(list.table, words, previews);
  for (let k = 1; k <= n; k++) {
    const i = (((from + step * k) % n) + n) % n;
    if (matches(list.row(i))) return i;
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
