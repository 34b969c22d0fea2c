// Wiring only: IPC results go into the store and the views; user input comes back as commands.
// `body[data-state]` is `loading`, then `ready` or `error`; `body[data-leaf]` names the leaf
// whose tree and context are on screen (the end-to-end test waits on both); `body[data-reloads]`
// counts the live reloads of the file; `body[data-plan]` is `open` while a compaction preview
// is on screen.

import {
  budget, compactionPreview, compactionRequests, contextView, usageReport, entryDetail, homeDir, onSessionChanged, openSession, rowPreviews, treeTable,
} from './ipc.js';
import { setHome } from './paths.js';
import { createStore } from './store.js';
import { sessionSummary } from './entries/format.js';
import { parseWindow } from './budget/bar.js';
import { renderBudget } from './budget/view.js';
import { renderContext } from './context/view.js';
import { contextActions } from './context/actions.js';
import { renderEntry, renderEntryHint } from './entry/view.js';
import { planRowClasses } from './plan/format.js';
import { renderPlan, renderRequests } from './plan/view.js';
import { createWrites } from './actions/flows.js';
import { FILTERS } from './tree/filter.js';
import { foldKey } from './tree/fold.js';
import { afterPaint, perfMark } from './tree/perf.js';
import {
  NO_ROWS, decodeTable, nextMatchIn, parentsIn, rowList, rowsAtLines, shownRows,
} from './tree/table.js';
import { reduceKey } from './tree/keys.js';
import { routeKey } from './keys.js';
import { renderLegend } from './tree/legend.js';
import { ROW_HEIGHT, createTreeView } from './tree/view.js';
import { looksUnreadable, problemsSummary } from './problems/format.js';
import { createProblemsPanel } from './problems/view.js';
import { initScreens } from './screens.js';
import { DIALECTS, ruleSetText } from './settings/model.js';
import { compareContexts } from './compare/align.js';
import { createMap } from './map/view.js';
import { renderUsage } from './usage/view.js';
import { renderCompare } from './compare/view.js';

const $ = (id) => document.getElementById(id);

// `allRows`: every row of the leaf's tree (tree/table.js's columns); `rows`: the ones shown
// (filter and search), a `rowList` over them.
// `followFile`: the leaf is the file's own, and follows it when an agent appends.
// `folded`: ids whose subtrees are hidden (← / →); `parents`: ids that have children.
const store = createStore({
  session: null, allRows: null, rows: NO_ROWS, leafId: null, followFile: true, selected: -1,
  folded: new Set(), parents: parentsIn(null),
  view: { filter: 'all', showMetadata: false, query: '' }, window: null,
  plan: null, planRows: new Map(),
});
const previews = new Map();
let requests = 0;

const tree = createTreeView($('tree'), {
  onSelect: (index) => select(index),
  onActivate: (index) => {
    const id = store.get().rows.id(index);
    if (id != null) showLeaf(id, id);
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
  return rows.id(selected);
}

function select(index) {
  const row = store.get().rows.at(index);
  if (!row) return;
  store.set({ selected: index });
  writes.selectionChanged(row);
  tree.setSelected(index);
  const request = ++requests;
  entryDetail(row.id)
    .then(async (detail) => {
      if (request !== requests) return;
      renderEntry($('entry'), detail);
      // A compaction: the requests it summarized, checked against its summary.
      if (detail.entryType === 'compaction') {
        const found = await compactionRequests(row.id);
        if (request === requests) renderRequests($('entry'), found);
      }
    })
    .catch(report);
}

// The branch map beside the tree: the same shown rows, the tree's window as a band.
const map = createMap($('map'), {
  onJump: (k) => select(k),
  onScroll: (k) => {
    $('tree').scrollTop = Math.max(0, k * ROW_HEIGHT - $('tree').clientHeight / 2);
  },
});
function drawMap() {
  const { allRows, rows } = store.get();
  if (!allRows) return;
  const first = Math.floor($('tree').scrollTop / ROW_HEIGHT);
  map.draw(allRows, rows, first, first + Math.ceil($('tree').clientHeight / ROW_HEIGHT));
}
let mapFrame = 0;
$('tree').addEventListener('scroll', () => {
  if (!mapFrame) mapFrame = requestAnimationFrame(() => {
    mapFrame = 0;
    drawMap();
  });
});

/** Recomputes the rows shown from `allRows`, keeping `keepId` (default: the selection) selected. */
function applyView(keepId = selectedId()) {
  const { allRows, view, leafId, folded } = store.get();
  const keep = new Set([leafId, keepId].filter(Boolean));
  const rows = rowList(allRows, allRows && shownRows(allRows, view, folded, keep, (id) => previews.get(id) ?? ''));
  const index = rows.find(keepId);
  const all = allRows?.n ?? 0;
  store.set({ rows, selected: -1 });
  tree.setRows(rows);
  $('tree-count').textContent = rows.length === all ? `${rows.length} rows` : `${rows.length} of ${all} rows`;
  if (index >= 0) select(index);
  else tree.setSelected(-1);
  drawMap();
}

let budgetRequests = 0;
/** Fetches and draws the bar of `leafId`; an answer overtaken by a newer request is dropped. */
function showBudget(leafId) {
  const request = ++budgetRequests;
  const { window: typed, settings } = store.get();
  return budget(leafId, typed ?? settings?.contextWindow ?? null).then((b) => {
    if (request === budgetRequests) renderBudget($('budget'), b);
  });
}

/**
 * Makes `leafId` the leaf (`null`: the file's leaf), then selects `selectId` (default: the leaf).
 * Resolves to whether it worked (errors are reported in the status line).
 */
let leafRequests = 0;
async function showLeaf(leafId, selectId = null) {
  return (await loadLeaf(leafId, selectId)).ok;
}

/**
 * The context last drawn, `{ path, requested, leafId, ctx }` (`requested`: the leaf asked for,
 * `null` for the file's leaf): a write's diff starts from it instead of fetching it again.
 */
let shownContext = null;

/** The drawn context of `leafId` (`null`: the file's leaf) when it is the one on screen. */
function contextShown(leafId) {
  const shown = shownContext;
  if (!shown || shown.path !== store.get().session?.path) return null;
  return (leafId == null ? shown.requested == null : shown.leafId === leafId) ? shown.ctx : null;
}

/** `showLeaf`, resolving to `{ ok, ctx }`: `ctx` is the context drawn, `null` when overtaken. */
async function loadLeaf(leafId, selectId = null) {
  // A newer call (another leaf chosen meanwhile) wins: this one stops at its next answer.
  const request = ++leafRequests;
  document.body.dataset.busy = 'true';
  try {
    // The tree first, alone (on two cores the context and the bar would slow it down), drawn as
    // soon as its rows arrive; then the context and the bar.
    perfMark('tree-request');
    const data = await treeTable(leafId);
    if (request !== leafRequests) return { ok: true, ctx: null };
    perfMark('tree-data');
    const view = decodeTable(data);
    perfMark('tree-decoded');
    document.body.dataset.perfTreeBackend = `${view.backendMs.prepare}/${view.backendMs.encode}`;
    store.set({
      allRows: view, parents: parentsIn(view), leafId: view.leafId, followFile: leafId == null,
    });
    problems.setRows(rowsAtLines(view, (store.get().session?.diagnostics ?? []).map((d) => d.line)));
    applyView(selectId ?? view.leafId);
    perfMark('tree-applied');
    // Let the tree be painted before the (possibly long) context is laid out.
    await afterPaint();
    perfMark('tree-painted');
    const [ctx] = await Promise.all([contextView(leafId), showBudget(leafId)]);
    if (request !== leafRequests) return { ok: true, ctx: null };
    perfMark('context-data');
    shownContext = { path: store.get().session?.path, requested: leafId, leafId: view.leafId, ctx };
    drawContext(ctx);
    perfMark('context-shown');
    $('context-leaf').textContent = view.leafId ? `leaf ${view.leafId}` : 'empty session';
    document.body.dataset.leaf = view.leafId ?? '';
    if (store.get().plan) openPlan();
    return { ok: true, ctx };
  } catch (err) {
    report(err);
    return { ok: false, ctx: null };
  } finally {
    if (request === leafRequests) delete document.body.dataset.busy;
  }
}

/** Draws `ctx` in the context panel, counting with the tokenizer of the settings. */
function drawContext(ctx) {
  renderContext($('context'), ctx, (id) => jumpTo(id), contextActions(document, { tokenizer: store.get().settings?.tokenizer, report }));
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
    renderPlan($('plan'), plan, (text) => writes.addInstructions(text));
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
  const index = store.get().rows.find(id);
  if (index < 0) applyView(id);
  else select(index);
}

const problems = createProblemsPanel($('problems'), { onJump: (id) => jumpTo(id) });
$('session-diagnostics').addEventListener('click', () => problems.toggle());

/** Shows `err` (a CommandError) in the problems panel; `doing` names what failed. */
function report(err, doing = null) {
  problems.showError(err, doing);
}

/** The title bar's rule-set switch: detect, or one of DIALECTS; a change re-opens the file. */
function renderRuleSwitch(session) {
  const sw = $('session-rules');
  if (!sw.options.length) {
    for (const c of DIALECTS) {
      const o = document.createElement('option');
      o.value = c.id;
      o.textContent = c.id === '' ? 'rules: detect' : c.label;
      sw.append(o);
    }
    sw.addEventListener('change', () => {
      const { session: open } = store.get();
      if (open) openAndShow(open.path, sw.value || null);
    });
  }
  sw.value = session.requested ?? '';
  sw.hidden = false;
}

function renderSession(session) {
  document.title = `${session.fileName} · contextree`;
  $('session-file').textContent = session.fileName;
  $('session-file').title = session.path;
  const rules = ruleSetText(session);
  $('session-dialect').textContent = rules.label;
  $('session-dialect').title = rules.title;
  $('session-dialect').hidden = false;
  renderRuleSwitch(session);
  $('session-summary').textContent = sessionSummary(session);
  $('session-diagnostics').textContent = problemsSummary(session.diagnostics);
  $('session-diagnostics').hidden = session.diagnostics.length === 0;
  problems.setSession(session);
}

/** The file changed on disk: show the new rows, keeping the selected entry and the leaf. */
async function reload(session) {
  // A watcher's last event can arrive after another file was opened.
  if (store.get().session && session.path !== store.get().session.path) return;
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
    const next = nextMatchIn(rows, view.query, selected, (id) => previews.get(id) ?? '', event.shiftKey ? -1 : 1);
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

// Live reloads and the view after a write, one at a time: a reload that starts while a write's
// refresh runs would otherwise put back the selection from before the write.
let pending = Promise.resolve();

// The write flows (compact, prune, continue, undo, edit) and their dialog: actions/flows.js.
const writes = createWrites({
  dialog: $('write-dialog'),
  bar: $('write-actions'),
  hooks: {
    current: () => {
      const s = store.get();
      return { session: s.session, leafId: s.leafId, followFile: s.followFile, row: s.rows.at(s.selected) ?? null, plan: s.plan };
    },
    markRows: (map) => {
      store.set({ planRows: map ?? planRowClasses(store.get().plan) });
      tree.refresh();
    },
    written: (session, { leafId, selectId }) => {
      const done = pending.then(async () => {
        if (store.get().plan) closePlan();
        previews.clear();
        store.set({ session });
        renderSession(session);
        return (await loadLeaf(leafId, selectId)).ctx;
      });
      pending = done.catch(report);
      return done;
    },
    reload: async () => {
      const { session } = store.get();
      // Keep a dialect forced in the settings; a detected one is detected again.
      if (session) await openAndShow(session.path, session.requested ?? null);
    },
    openPlan: () => openPlan(),
    contextShown: (leafId) => contextShown(leafId),
    report: (err) => report(err),
  },
});

/** `m`: remember the shown leaf as side A of a comparison. */
function markForCompare() {
  const leafId = document.body.dataset.leaf || null;
  if (!leafId) return;
  store.set({ compareLeaf: leafId });
  document.body.dataset.compareLeaf = leafId;
  $('compare-mark').textContent = `Marked ${leafId} (m)`;
  $('compare-open').disabled = false;
}

/** `=`: the marked leaf's context (A) beside the shown leaf's (B). */
async function openCompare() {
  const left = store.get().compareLeaf;
  const right = document.body.dataset.leaf || null;
  if (!left) return;
  try {
    const [a, b] = await Promise.all([contextView(left), contextView(right)]);
    const dialog = $('compare-dialog');
    renderCompare(dialog, compareContexts(a, b), a.leafId, b.leafId, () => dialog.close());
    document.body.dataset.compare = 'open';
    dialog.addEventListener('close', () => delete document.body.dataset.compare, { once: true });
  } catch (err) {
    report(err, 'comparing two leaves');
  }
}

/** `$`: what the session cost, as the agents recorded it. */
async function openUsage() {
  try {
    const dialog = $('usage-dialog');
    renderUsage(dialog, await usageReport(), () => dialog.close());
    document.body.dataset.compare = 'open';
    dialog.addEventListener('close', () => delete document.body.dataset.compare, { once: true });
  } catch (err) {
    report(err, 'summing the usage');
  }
}
$('show-usage').addEventListener('click', openUsage);

$('compare-mark').addEventListener('click', markForCompare);
$('compare-open').addEventListener('click', openCompare);

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
  const next = reduceKey({ selected, rowCount: rows.length, pageRows: tree.pageRows() }, key);
  if (!next) return false;
  if (next.command === 'select-leaf') showLeaf(rows.id(next.selected), rows.id(next.selected));
  else if (next.command === 'file-leaf') showLeaf(null);
  else if (next.selected !== selected) select(next.selected);
  return true;
}

/** What keys.js's actions do; `false`: the key did nothing (its default is kept). */
const keyActions = {
  'write-escape': () => writes.escape(),
  'close-screen': () => screens?.back(),
  library: () => screens?.showLibrary(),
  settings: () => screens?.showSettings(),
  open: () => screens?.pick(),
  compact: () => writes.start('compact'),
  prune: () => writes.start('prune'),
  navigate: () => writes.start('navigate'),
  undo: () => writes.start('undo'),
  edit: () => writes.start('edit'),
  'close-plan': () => closePlan(),
  plan: () => openPlan(),
  mark: () => markForCompare(),
  compare: () => openCompare(),
  usage: () => openUsage(),
  search: () => {
    search.focus();
    search.select();
  },
  fold: (event) => foldSelected(event.key),
  move: (event) => moveSelection(event.key),
};

// Every key goes through keys.js's table.
document.addEventListener('keydown', (event) => {
  const body = document.body;
  const action = routeKey(event, {
    screen: body.dataset.screen ?? null,
    dialog: writes.isOpen() ? 'write' : body.dataset.compare ? 'compare' : null,
    plan: store.get().plan != null,
    planOpen: body.dataset.plan === 'open',
  });
  if (action && keyActions[action](event) !== false) event.preventDefault();
});

/**
 * Shows a just opened session from the file's leaf: tree, context, budget, selection, folds,
 * plan and problems start over. Resolves to whether the tree could be shown.
 */
function showSession(session) {
  if (store.get().plan) closePlan();
  previews.clear();
  problems.close();
  store.set({ session, folded: new Set(), selected: -1, leafId: null, followFile: true });
  renderSession(session);
  renderEntryHint($('entry'), 'Select a row to see its line in the file.');
  // A file that reads as no session at all says why at once.
  if (looksUnreadable(session)) problems.open();
  return showLeaf(null);
}

/** Opens `path` (`dialect`: forced rules) in place of the open session (Library, Open…, Settings). */
async function openAndShow(path, dialect = null) {
  try {
    return await showSession(await openSession(path, dialect));
  } catch (err) {
    report(err, `Opening ${path}`);
    return false;
  }
}

/**
 * Settings read at start or saved: the budget bar's default window (a typed one wins) and the
 * context panel's tokenizer (the panel is drawn again when it changed).
 */
function applySettings(settings) {
  // Until settings arrive the panel counts with o200k_base (context/actions.js).
  const before = store.get().settings?.tokenizer ?? 'o200k_base';
  store.set({ settings });
  $('budget-window').placeholder = settings.contextWindow ? `${settings.contextWindow} (settings)` : 'auto';
  const { session, followFile, leafId } = store.get();
  if (!session || !leafId) return;
  showBudget(followFile ? null : leafId).catch(report);
  // Only the panel's counts change: draw the context on screen again, without fetching it.
  if (before !== settings.tokenizer && shownContext?.path === session.path) drawContext(shownContext.ctx);
}

let screens = null;

async function start() {
  renderLegend($('tree-legend'));
  renderEntryHint($('entry'), 'Select a row to see its line in the file.');
  screens = initScreens({ open: openAndShow, session: () => store.get().session, report, onSettings: applySettings });
  try {
    perfMark('open');
    // The home folder (paths inside it are shown as `~/…`) is asked for beside the session.
    const [first] = await Promise.all([openSession(null), homeDir().then(setHome, () => setHome(null))]);
    perfMark('opened');
    await showSession(first);
    await onSessionChanged((next) => {
      pending = pending.then(() => reload(next)).catch(report);
    });
    $('tree').focus();
    $('status').hidden = true;
    document.body.dataset.state = 'ready';
    screens.offerLibrary(first); // not awaited: after the first paint, off the main thread
  } catch (err) {
    $('status').textContent = `Could not open the session (${err.kind ?? 'error'}): ${err.message}`;
    document.body.dataset.state = 'error';
  }
}

start();
