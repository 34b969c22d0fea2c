// Which tree rows are shown: the filter (all / no tools / user only / labelled, metadata hidden
// unless asked for) and the `/` search over id, role, label and the previews loaded so far.
// Pure (node --test).

import { entryKind, entryLabel } from '../entries/format.js';

/** The filters of the tree's menu, in order; `all` is the default. */
export const FILTERS = [
  { id: 'all', label: 'all' },
  { id: 'no-tools', label: 'no tools' },
  { id: 'user', label: 'user only' },
  { id: 'labelled', label: 'labelled' },
];

const isMetadata = (row) => row.state === 'metadata';

/** Whether `row` passes `filter`; metadata rows only with `showMetadata`. */
export function passesFilter(row, filter, showMetadata = false) {
  if (!showMetadata && isMetadata(row)) return false;
  const kind = entryKind({ entryType: row.entryType, role: row.kind });
  switch (filter) {
    case 'no-tools':
      return kind !== 'tool';
    case 'user':
      return kind === 'user';
    case 'labelled':
      return row.label != null && row.label !== '';
    default:
      return true;
  }
}

/** Whether `row` matches the search `query` (case-insensitive, every word somewhere). */
export function matchesQuery(row, query, preview = '') {
  const words = String(query).toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const hay = [row.id, row.kind, entryLabel({ entryType: row.entryType, role: row.kind }), row.entryType, row.label ?? '', preview ?? '']
    .join('\n')
    .toLowerCase();
  return words.every((w) => hay.includes(w));
}

/** @typedef {(id: string) => string} PreviewOf the preview text of an entry id loaded so far */

/**
 * Indexes (into `rows`) of the rows to show, in order. `view` is `{ filter, showMetadata,
 * query }`; `keep` ids (the leaf, the selected entry) are always shown so the selection never
 * disappears; `preview(id)` is the preview text loaded so far.
 *
 * @param {any[]} rows
 * @param {{ filter?: string, showMetadata?: boolean, query?: string }} [view]
 * @param {Set<string>} [keep]
 * @param {PreviewOf} [preview]
 */
export function visibleRows(rows, { filter = 'all', showMetadata = false, query = '' } = {}, keep = new Set(), preview = () => '') {
  const out = [];
  rows.forEach((row, i) => {
    if (keep.has(row.id) || (passesFilter(row, filter, showMetadata) && matchesQuery(row, query, preview(row.id)))) out.push(i);
  });
  return out;
}

/**
 * The next row matching `query` after position `from` in `shown` (a list of rows), wrapping;
 * `-1` when none matches. `step` −1 searches backwards.
 *
 * @param {any[]} shown
 * @param {string} query
 * @param {number} from
 * @param {PreviewOf} [preview]
 * @param {number} [step]
 */
export function nextMatch(shown, query, from, preview = () => '', step = 1) {
  const n = shown.length;
  if (n === 0 || !String(query).trim()) return -1;
  for (let k = 1; k <= n; k++) {
    const i = (((from + step * k) % n) + n) % n;
    if (matchesQuery(shown[i], query, preview(shown[i].id))) return i;
  }
  return -1;
}
