// The renderers: one per part of the state, each drawing that part whenever it is set. They
// are the only code that draws from the store, so a part of the screen is always what the state
// says, whichever action changed it. Registered in one place because the store runs its
// listeners in the order they were added, and a set naming several parts draws them in that order.
// `body[data-leaf]` names the leaf whose context is on screen, `body[data-plan]` is `loading`,
// then `open` while a compaction preview is on screen, `body[data-reloads]` counts the live
// reloads (the end-to-end tests wait on them).

import { renderBudget } from './budget/view.js';
import { contextActions } from './context/actions.js';
import { renderContext } from './context/view.js';
import { renderEntry, renderEntryHint } from './entry/view.js';
import { renderPlan, renderRequests } from './plan/view.js';
import { leafAsked } from './state.js';
import { rowCountText } from './tree/format.js';
import { $ } from './dom.js';

/**
 * Registers every renderer on `store`, in drawing order. `tree` is the tree view, `drawMap()`
 * redraws the branch map (map/panel.js), `graph` the branch graph (graph/panel.js), `writes` the write flows (flows.js), `renderSession`
 * draws the title bar (session.js), `showBudget(leafId)` fetches the bar (budget/actions.js),
 * `jumpTo(id)` selects an entry (tree/selection.js), `report(err)` shows an error.
 */
export function subscribeRenderers(store, {
  tree, drawMap, graph, writes, renderSession, showBudget, jumpTo, report,
}) {

  /** Draws `ctx` in the context panel, counting with the tokenizer of the settings. */
  function drawContext(ctx) {
    renderContext($('context'), ctx, (id) => jumpTo(id), contextActions(document, { tokenizer: store.get().settings?.tokenizer, report }));
  }

  // ---- The renderers: each draws one part of the state when it is set (in this order).
  const body = document.body;
  store.on('session', ({ session }) => {
    if (session) renderSession(session);
  });
  store.on('rows', ({ rows, allRows }) => {
    tree.setRows(rows);
    const all = allRows?.n ?? 0;
    $('tree-count').textContent = rowCountText(rows.length, all);
    drawMap();
    graph.drawGraph();
  });
  store.on('selected', ({ rows, selected }) => {
    writes.selectionChanged(rows.at(selected) ?? null);
    tree.setSelected(selected);
    graph.selectionChanged();
  });
  store.on(['previews', 'planRows'], () => {
    tree.refresh();
    graph.previewsChanged();
  });
  store.on('entry', ({ entry }) => {
    if (entry) renderEntry($('entry'), entry);
    else renderEntryHint($('entry'), 'Select a row to see its line in the file.');
  });
  store.on('entryRequests', ({ entryRequests: found }) => {
    if (found) renderRequests($('entry'), found);
  });
  store.on('shown', ({ shown }) => {
    if (!shown) return;
    drawContext(shown.ctx);
    $('context-leaf').textContent = shown.leafId ? `leaf ${shown.leafId}` : 'empty session';
    body.dataset.leaf = shown.leafId ?? '';
  });
  store.on('budget', ({ budget: b }) => {
    if (b) renderBudget($('budget'), b);
  });
  store.on('window', () => showBudget(leafAsked(store.get())).catch(report));
  store.on('settings', ({ settings, session, leafId, shown }, previous) => {
    $('budget-window').placeholder = settings.contextWindow ? `${settings.contextWindow} (settings)` : 'auto';
    if (!session || !leafId) return;
    showBudget(leafAsked(store.get())).catch(report);
    // Only the panel's counts change: draw the context on screen again, without fetching it.
    // Until settings arrive the panel counts with o200k_base (context/actions.js).
    const before = previous.settings?.tokenizer ?? 'o200k_base';
    if (before !== settings.tokenizer && shown?.path === session.file) drawContext(shown.ctx);
  });
  store.on('plan', ({ plan }) => {
    $('entry-title').textContent = plan ? 'Plan' : 'Entry';
    if (plan) renderPlan($('plan'), plan, (text) => writes.addInstructions(text));
    else $('plan').replaceChildren();
    $('entry').hidden = Boolean(plan);
    $('plan').hidden = !plan;
    $('plan-open').hidden = Boolean(plan);
    $('plan-close').hidden = !plan;
  });
  store.on('planStatus', ({ planStatus }) => {
    if (planStatus) body.dataset.plan = planStatus;
    else delete body.dataset.plan;
  });
  store.on('compareLeaf', ({ compareLeaf }) => {
    if (!compareLeaf) return;
    body.dataset.compareLeaf = compareLeaf;
    $('compare-mark').textContent = `Marked ${compareLeaf} (m)`;
    $('compare-open').disabled = false;
  });
  store.on('overlay', ({ overlay }) => {
    if (overlay) body.dataset.compare = 'open';
    else delete body.dataset.compare;
  });
  store.on('busy', ({ busy }) => {
    if (busy) body.dataset.busy = 'true';
    else delete body.dataset.busy;
  });
  store.on('reloads', ({ reloads }) => {
    body.dataset.reloads = String(reloads);
  });
}
