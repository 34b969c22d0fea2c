// Wiring only: IPC results go into the store and the views; user input comes back as commands.
// `body[data-state]` is `loading`, then `ready` or `error`; `body[data-leaf]` names the leaf
// whose tree and context are on screen (the end-to-end test waits on both).

import { contextView, entryDetail, openSession, rowPreviews, treeRows } from './ipc.js';
import { createStore } from './store.js';
import { sessionSummary } from './entries/format.js';
import { renderContext } from './context/view.js';
import { renderEntry, renderEntryHint } from './entry/view.js';
import { rowIndex } from './tree/format.js';
import { reduceKey } from './tree/keys.js';
import { renderLegend } from './tree/legend.js';
import { createTreeView } from './tree/view.js';

const $ = (id) => document.getElementById(id);

const store = createStore({ session: null, rows: [], leafId: null, selected: -1 });
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

/** Makes `leafId` the leaf (`null`: the file's leaf), then selects `selectId` (default: the leaf). */
async function showLeaf(leafId, selectId = null) {
  document.body.dataset.busy = 'true';
  try {
    const [view, ctx] = await Promise.all([treeRows(leafId), contextView(leafId)]);
    store.set({ rows: view.rows, leafId: view.leafId });
    tree.setRows(view.rows);
    renderContext($('context'), ctx, (id) => select(rowIndex(store.get().rows, id)));
    $('context-leaf').textContent = view.leafId ? `leaf ${view.leafId}` : 'empty session';
    const index = rowIndex(view.rows, selectId ?? view.leafId);
    if (index >= 0) select(index);
    document.body.dataset.leaf = view.leafId ?? '';
  } catch (err) {
    report(err);
  } finally {
    delete document.body.dataset.busy;
  }
}

function report(err) {
  $('status').textContent = `Error (${err.kind ?? 'error'}): ${err.message}`;
  $('status').hidden = false;
}

document.addEventListener('keydown', (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.target.closest?.('#context, #entry')) return;
  const { selected, rows } = store.get();
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
    await showLeaf(null);
    $('tree').focus();
    $('status').hidden = true;
    document.body.dataset.state = 'ready';
  } catch (err) {
    $('status').textContent = `Could not open the session (${err.kind ?? 'error'}): ${err.message}`;
    document.body.dataset.state = 'error';
  }
}

start();
