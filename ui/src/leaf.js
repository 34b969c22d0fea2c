// Making a leaf the one on screen: its tree, then its context and budget bar (and a plan still
// open, for the new leaf). One module for the whole sequence because its order is what the
// user feels: the tree is drawn and painted before the (possibly long) context is laid out,
// and a leaf chosen meanwhile wins, so a slow answer never replaces a newer leaf's.

import { contextView, treeTable } from './ipc.js';
import { latestRequest } from './requests.js';
import { afterPaint, perfMark } from './tree/perf.js';
import { decodeTable, parentsIn, rowsAtLines } from './tree/table.js';

/**
 * The leaf loader over `store`. `problems` is the problems panel (its `setRows`: the rows at
 * the diagnostics' lines); `applyView(keepId, fetch)` recomputes the shown rows and
 * `fetchEntry()` fetches the selected row's entry (tree/selection.js);
 * `showBudget(leafId)` fetches the bar (budget/actions.js); `openPlan()` previews a compaction
 * again (plan/actions.js); `report(err)` shows an error. Returns `{ showLeaf, loadLeaf }`.
 */
export function createLeafLoader(store, {
  problems, applyView, fetchEntry, showBudget, openPlan, report,
}) {
  // "Latest request wins" (requests.js): an answer overtaken by a newer request is dropped.
  const leafRequests = latestRequest();

  /**
   * Makes `leafId` the leaf (`null`: the file's leaf), then selects `selectId` (default: the leaf).
   * Resolves to whether it worked (errors are reported in the status line).
   */
  async function showLeaf(leafId, selectId = null) {
    return (await loadLeaf(leafId, selectId)).ok;
  }

  /** `showLeaf`, resolving to `{ ok, ctx }`: `ctx` is the context drawn, `null` when overtaken. */
  async function loadLeaf(leafId, selectId = null) {
    // A newer call (another leaf chosen meanwhile) wins: this one stops at its next answer.
    const current = leafRequests.begin();
    store.set({ busy: true });
    try {
      // The tree first, alone (on two cores the context and the bar would slow it down), drawn as
      // soon as its rows arrive; then the context and the bar.
      perfMark('tree-request');
      // The table held: a leaf of the same reading of the file needs only the leaf's columns,
      // or only the rows where they differ from the held leaf's.
      const held = store.get().allRows;
      const data = await treeTable(leafId, held?.reading ?? null, held?.leafId ?? null);
      if (!current()) return { ok: true, ctx: null };
      perfMark('tree-data');
      const view = decodeTable(data, held);
      perfMark('tree-decoded');
      document.body.dataset.perfTreeBackend = `${view.backendMs.prepare}/${view.backendMs.encode}`;
      store.set({
        allRows: view, parents: parentsIn(view), leafId: view.leafId, followFile: leafId == null,
      });
      // The rows at the diagnostics' lines are the same for every leaf of a reading.
      if (view.reading !== held?.reading) problems.setRows(rowsAtLines(view, (store.get().session?.diagnostics ?? []).map((d) => d.line)));
      // The selected row's entry is asked for after the paint: its answer, drawn before the
      // frame, would hold the tree's paint back.
      applyView(selectId ?? view.leafId, false);
      perfMark('tree-applied');
      // Let the tree be painted before the (possibly long) context is laid out.
      await afterPaint();
      perfMark('tree-painted');
      if (current()) fetchEntry();
      const [ctx] = await Promise.all([contextView(leafId), showBudget(leafId)]);
      if (!current()) return { ok: true, ctx: null };
      perfMark('context-data');
      store.set({ shown: { path: store.get().session?.file, requested: leafId, leafId: view.leafId, ctx } });
      perfMark('context-shown');
      if (store.get().plan) openPlan();
      return { ok: true, ctx };
    } catch (err) {
      report(err);
      return { ok: false, ctx: null };
    } finally {
      if (current()) store.set({ busy: false });
    }
  }

  return { showLeaf, loadLeaf };
}
