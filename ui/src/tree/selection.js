// What is shown of a tree already loaded, and where the selection is in it: the selected row
// (its entry fetched for the entry pane), the rows the filter, search and folds leave, the
// previews of the rows on screen, and the tree's keys. Apart from leaf.js, which loads a tree:
// nothing here asks for another leaf's tree, it only shows more or less of the one there.

import { compactionRequests, entryDetail, rowPreviews } from '../ipc.js';
import { latestRequest } from '../requests.js';
import { selectedId } from '../state.js';
import { foldKey } from './fold.js';
import { reduceKey } from './keys.js';
import {
  keptRows, rowList, shownRows, shownRowsAfter,
} from './table.js';

/**
 * The selection's actions over `store` (state.js). `report(err)` shows an error;
 * `pageRows()` is how many rows a page holds (the tree view's); `showLeaf(leafId, selectId)`
 * makes a leaf the one on screen (leaf.js). Returns `{ select, applyView, jumpTo,
 * fetchPreviews, fetchEntry, foldSelected, moveSelection }`.
 */
export function createSelection(store, { report, pageRows, showLeaf }) {
  // "Latest request wins" (requests.js): the entry of a row selected since is not drawn.
  const entryRequests = latestRequest();

  /** Fetches the first lines of the rows `ids` not fetched yet into `previews`. */
  function fetchPreviews(ids) {
    const { previews } = store.get();
    const missing = ids.filter((id) => !previews.has(id));
    if (missing.length === 0) return;
    for (const id of missing) previews.set(id, '');
    rowPreviews(missing)
      .then((list) => {
        for (const { id, text } of list) previews.set(id, text);
        // Drawn unless the cache was dropped meanwhile (the file changed).
        if (store.get().previews === previews) store.set({ previews });
      })
      .catch(report);
  }

  /**
   * Selects the shown row at `index` and fetches its entry (a compaction's requests too), unless
   * `fetch` is false: a leaf change fetches it once the tree is painted (`fetchEntry`), so that
   * drawing the entry does not hold the tree's paint back.
   */
  function select(index, fetch = true) {
    const row = store.get().rows.at(index);
    if (!row) return;
    store.set({ selected: index });
    // Begun either way: an entry still coming for the row selected before is not drawn.
    const current = entryRequests.begin();
    if (fetch) loadEntry(row.id, current);
  }

  /** Fetches the selected row's entry (after `select(index, false)`). */
  function fetchEntry() {
    const { rows, selected } = store.get();
    const row = selected >= 0 ? rows.at(selected) : undefined;
    if (row) loadEntry(row.id, entryRequests.begin());
  }

  /** Draws the entry `id` (and a compaction's requests) while `current()` holds. */
  function loadEntry(id, current) {
    entryDetail(id)
      .then(async (detail) => {
        if (!current()) return;
        store.set({ entry: detail });
        // A compaction: the requests it summarized, checked against its summary.
        if (detail.entryType === 'compaction') {
          const found = await compactionRequests(id);
          if (current()) store.set({ entryRequests: found });
        }
      })
      .catch(report);
  }

  /**
   * Recomputes the rows shown from `allRows`, keeping `keepId` (default: the selection)
   * selected: after a leaf change that sent only the changed rows, from the rows shown before.
   * `fetch`: whether the selected row's entry is fetched now (`select`).
   */
  function applyView(keepId = selectedId(store.get()), fetch = true) {
    const {
      allRows, view, leafId, folded, previews, rows: before,
    } = store.get();
    const keep = new Set([leafId, keepId].filter(Boolean));
    const shown = allRows && (shownRowsAfter(allRows, before, view, folded, keep) ?? shownRows(allRows, view, folded, keep, previews));
    const rows = rowList(allRows, shown, keptRows(allRows, keep));
    const index = rows.find(keepId);
    store.set({ rows, selected: -1 });
    if (index >= 0) select(index, fetch);
  }

  /** Selects the row of entry `id`, showing it even when the filter hides it. */
  function jumpTo(id) {
    const index = store.get().rows.find(id);
    if (index < 0) applyView(id);
    else select(index);
  }

  /** ← / →: fold or unfold the selected row, or go to its parent; `false` when it does nothing. */
  function foldSelected(key) {
    const { selected, rows, folded, parents } = store.get();
    const fold = foldKey(rows.at(selected), key, folded, parents);
    if (!fold) return false;
    if (fold.select) return jumpTo(fold.select);
    const next = new Set(folded);
    if (fold.fold) next.add(fold.fold);
    else next.delete(fold.unfold);
    store.set({ folded: next });
    return applyView();
  }

  /** The tree's moves (tree/keys.js), Enter (make the row the leaf) and `g` (the file's leaf). */
  function moveSelection(key) {
    const { selected, rows } = store.get();
    const next = reduceKey({ selected, rowCount: rows.length, pageRows: pageRows() }, key);
    if (!next) return false;
    if (next.command === 'select-leaf') showLeaf(rows.id(next.selected), rows.id(next.selected));
    else if (next.command === 'file-leaf') showLeaf(null);
    else if (next.selected !== selected) select(next.selected);
    return true;
  }

  return {
    select, applyView, jumpTo, fetchPreviews, fetchEntry, foldSelected, moveSelection,
  };
}
