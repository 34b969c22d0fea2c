// Wiring only: IPC results go into the store and the views; user input comes back as commands.
// `body[data-state]` is `loading`, then `ready` or `error`; `body[data-leaf]` names the leaf
// whose tree and context are on screen (the end-to-end test waits on both); `body[data-reloads]`
// counts the live reloads of the file; `body[data-plan]` is `open` while a compaction preview
// is on screen.

import {
  budget, compactionPreview, contextView, entryDetail, onSessionChanged, openSession, rowPreviews, treeRows,
} from './ipc.js';
import { createStore } from './store.js';
import { sessionSummary } from './entries/format.js';
import { parseWindow } from './budget/bar.js';
import { renderBudget } from './budget/view.js';
import { renderContext } from './context/view.js';
import { renderEntry, renderEntryHint } from './entry/view.js';
import { planRowClasses } from './plan/format.js';
import { renderPlan } from './plan/view.js';
import { FILTERS, nextMatch, visibleRows } from './tree/filter.js';
import { foldKey, parentsOf, unfoldedRows } from './tree/fold.js';
import { rowIndex } from './tree/format.js';
import { reduceKey } from './tree/keys.js';
import { renderLegend } from './tree/legend.js';
import { createTreeView } from './tree/view.js';

const $ = (id) => document.getElementById(id);

// `allRows`: every row of the leaf's tree; `rows`: the ones shown (filter and search).
// `followFile`: the leaf is the file's own, and follows it when an agent appends.
// `folded`: ids whose subtrees are hidden (← / →); `parents`: ids that have children.
const store = createStore({
  session: null, allRows: [], rows: [], leafId: null, followFile: true, selected: -1,
  folded: new Set(), parents: new Set(),
  view: { filter: 'all', showMetadata: false, query: '' }, window: null,
  plan: null, planRows: new Map(),
});
const previews = new Map();
let requests = 0;

const tree = createTreeView($('tree'), {
  onSelect: (index) => select(index),
  onActivate: (index) => {
    const row = store.get().rows[index];
    if (row) showLeaf(row.id, row.id);
  },
  onRange: fetchPreviews,
  preview: (id) => previews.get(id),
  isFolded: (id) => store.get().folded.has(id),
  rowClass: (id) => store.get().planRows.get(id),
});

function fetchPreviews(ids) {
  const missing = ids.filter((id) => !previews.has(id));
  if (missing.length === 0) return;
  for (const id of missing) previews.set(id, '');
  rowPreviews(missing)
    .then((list) => {
      for (const { id, text } of list) previews.set(id, text);
      tree.refresh();
    })
    .catch(report);
}

function selectedId() {
  const { rows, selected } = store.get();
  return rows[selected]?.id ?? null;
}

function select(index) {
  const row = store.get().rows[index];
  if (!row) return;
  store.set({ selected: index });
  tree.setSelected(index);
  const request = ++requests;
  entryDetail(row.id)
    .then((detail) => {
      if (request === requests) renderEntry($('entry'), detail);
    })
    .catch(report);
}

/** Recomputes the rows shown from `allRows`, keeping `keepId` (default: the selection) selected. */
function applyView(keepId = selectedId()) {
  const { allRows, view, leafId, folded } = store.get();
  const keep = new Set([leafId, keepId].filter(Boolean));
  const base = unfoldedRows(allRows, folded).map((i) => allRows[i]);
  const rows = visibleRows(base, view, keep, (id) => previews.get(id) ?? '').map((i) => base[i]);
  const index = rowIndex(rows, keepId);
  store.set({ rows, selected: -1 });
  tree.setRows(rows);
  $('tree-count').textContent = rows.length === allRows.length ? `${rows.length} rows` : `${rows.length} of ${allRows.length} rows`;
  if (index >= 0) select(index);
  else tree.setSelected(-1);
}

let budgetRequests = 0;
/** Fetches and draws the bar of `leafId`; an answer overtaken by a newer request is dropped. */
function showBudget(leafId) {
  const request = ++budgetRequests;
  return budget(leafId, store.get().window).then((b) => {
    if (request === budgetRequests) renderBudget($('budget'), b);
  });
}

/**
 * Makes `leafId` the leaf (`null`: the file's leaf), then selects `selectId` (default: the leaf).
 * Resolves to whether it worked (errors are reported in the status line).
 */
async function showLeaf(leafId, selectId = null) {
  document.body.dataset.busy = 'true';
  try {
    const [view, ctx] = await Promise.all([treeRows(leafId), contextView(leafId), showBudget(leafId)]);
    store.set({
      allRows: view.rows, parents: parentsOf(view.rows), leafId: view.leafId, followFile: leafId == null,
    });
    renderContext($('context'), ctx, (id) => jumpTo(id));
    $('context-leaf').textContent = view.leafId ? `leaf ${view.leafId}` : 'empty session';
    applyView(selectId ?? view.leafId);
    document.body.dataset.leaf = view.leafId ?? '';
    if (store.get().plan) openPlan();
    return true;
  } catch (err) {
    report(err);
    return false;
  } finally {
    delete document.body.dataset.busy;
  }
}

let planRequests = 0;
/** Shows the compaction preview of the current leaf in the PLAN panel; dashes the rows it changes. */
async function openPlan() {
  const request = ++planRequests;
  const { followFile, leafId } = store.get();
  document.body.dataset.plan = 'loading';
  try {
    const plan = await compactionPreview(followFile ? null : leafId);
    if (request !== planRequests) return;
    store.set({ plan, planRows: planRowClasses(plan) });
    renderPlan($('plan'), plan);
    $('entry-title').textContent = 'Plan';
    $('entry').hidden = true;
    $('plan').hidden = false;
    $('plan-open').hidden = true;
    $('plan-close').hidden = false;
    tree.refresh();
    document.body.dataset.plan = 'open';
  } catch (err) {
    if (request === planRequests) delete document.body.dataset.plan;
    report(err);
  }
}

/** Back to the entry pane; the dashed outlines go. */
function closePlan() {
  ++planRequests;
  store.set({ plan: null, planRows: new Map() });
  $('entry-title').textContent = 'Entry';
  $('plan').hidden = true;
  $('plan').replaceChildren();
  $('entry').hidden = false;
  $('plan-open').hidden = false;
  $('plan-close').hidden = true;
  tree.refresh();
  delete document.body.dataset.plan;
}

/** Selects the row of entry `id`, showing it even when the filter hides it. */
function jumpTo(id) {
  if (rowIndex(store.get().rows, id) < 0) applyView(id);
  else select(rowIndex(store.get().rows, id));
}

function report(err) {
  $('status').textContent = `Error (${err.kind ?? 'error'}): ${err.message}`;
  $('status').hidden = false;
}

function renderSession(session) {
  document.title = `${session.fileName} · contextree`;
  $('session-file').textContent = session.fileName;
  $('session-file').title = session.path;
  $('session-dialect').textContent = `dialect: ${session.dialect}`;
  $('session-dialect').hidden = false;
  $('session-summary').textContent = sessionSummary(session);
  const n = session.diagnostics.length;
  $('session-diagnostics').textContent = n === 0 ? '' : `${n} ${n === 1 ? 'problem' : 'problems'}`;
  $('session-diagnostics').title = session.diagnostics
    .slice(0, 20)
    .map((d) => `line ${d.line}: ${d.severity}: ${d.message}`)
    .join('\n');
}

/** The file changed on disk: show the new rows, keeping the selected entry and the leaf. */
async function reload(session) {
  store.set({ session });
  renderSession(session);
  const { followFile, leafId } = store.get();
  const keep = selectedId();
  previews.clear();
  // A leaf that is gone (the file was rewritten) falls back to the file's leaf.
  if (!(await showLeaf(followFile ? null : leafId, keep)) && !followFile) await showLeaf(null, keep);
  document.body.dataset.reloads = String(Number(document.body.dataset.reloads ?? 0) + 1);
}

// Search: `/` opens it, typing filters, Enter goes to the next match, Esc closes it.
const search = $('tree-search');
search.addEventListener('input', () => {
  store.set({ view: { ...store.get().view, query: search.value } });
  applyView();
});
search.addEventListener('keydown', (event) => {
  if (event.key === 'Enter') {
    event.preventDefault();
    const { rows, selected, view } = store.get();
    const next = nextMatch(rows, view.query, selected, (id) => previews.get(id) ?? '', event.shiftKey ? -1 : 1);
    if (next >= 0) select(next);
  } else if (event.key === 'Escape') {
    event.preventDefault();
    search.value = '';
    store.set({ view: { ...store.get().view, query: '' } });
    applyView();
    $('tree').focus();
  }
});

for (const { id, label } of FILTERS) {
  const option = document.createElement('option');
  option.value = id;
  option.textContent = label;
  $('tree-filter').append(option);
}
$('tree-filter').addEventListener('change', (event) => {
  store.set({ view: { ...store.get().view, filter: event.target.value } });
  applyView();
});
$('tree-metadata').addEventListener('change', (event) => {
  store.set({ view: { ...store.get().view, showMetadata: event.target.checked } });
  applyView();
});
function applyWindow() {
  const input = $('budget-window');
  const window = parseWindow(input.value);
  if (window == null) input.value = '';
  if (window === store.get().window) return;
  store.set({ window });
  showBudget(store.get().followFile ? null : store.get().leafId).catch(report);
}
$('budget-window').addEventListener('change', applyWindow);
$('budget-window').addEventListener('keydown', (event) => {
  if (event.key === 'Enter') applyWindow();
});

$('plan-open').addEventListener('click', () => openPlan());
$('plan-close').addEventListener('click', () => closePlan());

document.addEventListener('keydown', (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key === 'Escape' && store.get().plan && !event.target.closest?.('input, select')) {
    event.preventDefault();
    closePlan();
    return;
  }
  if (event.target.closest?.('#context, #entry, #plan, input, select, label')) return;
  if (event.key === 'c') {
    event.preventDefault();
    openPlan();
    return;
  }
  if (event.key === '/') {
    event.preventDefault();
    search.focus();
    search.select();
    return;
  }
  const { selected, rows, folded, parents } = store.get();
  const fold = foldKey(rows[selected], event.key, folded, parents);
  if (fold) {
    event.preventDefault();
    if (fold.select) return jumpTo(fold.select);
    const next = new Set(folded);
    if (fold.fold) next.add(fold.fold);
    else next.delete(fold.unfold);
    store.set({ folded: next });
    return applyView();
  }
  const next = reduceKey({ selected, rowCount: rows.length, pageRows: tree.pageRows() }, event.key);
  if (!next) return;
  event.preventDefault();
  if (next.command === 'select-leaf') showLeaf(rows[next.selected].id, rows[next.selected].id);
  else if (next.command === 'file-leaf') showLeaf(null);
  else if (next.selected !== selected) select(next.selected);
});

async function start() {
  renderLegend($('tree-legend'));
  renderEntryHint($('entry'), 'Select a row to see its line in the file.');
  try {
    const session = await openSession(null);
    store.set({ session });
    renderSession(session);
    await showLeaf(null);
    let pending = Promise.resolve();
    await onSessionChanged((next) => {
      pending = pending.then(() => reload(next)).catch(report);
    });
    $('tree').focus();
    $('status').hidden = true;
    document.body.dataset.state = 'ready';
  } catch (err) {
    $('status').textContent = `Could not open the session (${err.kind ?? 'error'}): ${err.message}`;
    document.body.dataset.state = 'error';
  }
}

start();
