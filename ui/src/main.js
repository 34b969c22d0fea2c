// Wiring only. The state lives in one store (store.js); actions (IPC calls, user input) set it,
// and one renderer per part of it (`store.on`, below the actions) draws it. Every key goes
// through keys.js's table; each "latest request wins" through requests.js.
// `body[data-state]` is `loading`, then `ready` or `error`; `body[data-leaf]` names the leaf
// whose tree and context are on screen (the end-to-end test waits on both); `body[data-reloads]`
// counts the live reloads of the file; `body[data-plan]` is `loading`, then `open` while a
// compaction preview is on screen.

import {
  homeDir, onSessionChanged, openSession,
} from './ipc.js';
import { setHome } from './paths.js';
import { createStore } from './store.js';
import {
  initialState, leafAsked as leafAskedOf,
} from './state.js';
import { serial } from './requests.js';
import { createLeafLoader } from './leaf.js';
import { createSession } from './session.js';
import { createOverlays } from './overlays.js';
import { createBudgetActions } from './budget/actions.js';
import { renderBudget } from './budget/view.js';
import { renderContext } from './context/view.js';
import { contextActions } from './context/actions.js';
import { renderEntry, renderEntryHint } from './entry/view.js';
import { renderPlan, renderRequests } from './plan/view.js';
import { createPlanActions } from './plan/actions.js';
import { createWrites } from './actions/flows.js';
import { writeHooks } from './actions/hooks.js';
import { perfMark } from './tree/perf.js';
import { createSelection } from './tree/selection.js';
import { initTreeTools } from './tree/tools.js';
import { routeKey } from './keys.js';
import { renderLegend } from './tree/legend.js';
import { createTreeView } from './tree/view.js';
import { createProblemsPanel } from './problems/view.js';
import { initScreens } from './screens.js';
import { createMapPanel } from './map/panel.js';

const $ = (id) => document.getElementById(id);

// The state, all of it (state.js): the views below draw from it (`store.on`), the actions change it.
const store = createStore(initialState());

// The selection and what is shown of the tree: tree/selection.js.
const selection = createSelection(store, {
  report,
  pageRows: () => tree.pageRows(),
  showLeaf: (leafId, selectId) => showLeaf(leafId, selectId),
});
const {
  select, applyView, jumpTo, previewOf, foldSelected, moveSelection,
} = selection;

const tree = createTreeView($('tree'), {
  onSelect: (index) => select(index),
  onActivate: (index) => {
    const id = store.get().rows.id(index);
    if (id != null) showLeaf(id, id);
  },
  onRange: selection.fetchPreviews,
  preview: (id) => store.get().previews.get(id),
  isFolded: (id) => store.get().folded.has(id),
  rowClass: (id) => store.get().planRows.get(id),
});

// The branch map beside the tree (after the tree: its scroll listener comes second): map/panel.js.
const { drawMap } = createMapPanel(store, { select });

/** The leaf whose budget and plan are asked for: `null` while the file's leaf is followed. */
function leafAsked() {
  return leafAskedOf(store.get());
}

/** Draws `ctx` in the context panel, counting with the tokenizer of the settings. */
function drawContext(ctx) {
  renderContext($('context'), ctx, (id) => jumpTo(id), contextActions(document, { tokenizer: store.get().settings?.tokenizer, report }));
}

const problems = createProblemsPanel($('problems'), { onJump: (id) => jumpTo(id) });

/** Shows `err` (a CommandError) in the problems panel; `doing` names what failed. */
function report(err, doing = null) {
  problems.showError(err, doing);
}

// The tree's tools (search, filter, metadata): tree/tools.js.
const { focusSearch } = initTreeTools(store, { applyView, select, previewOf });

// The budget bar's requests and window field: budget/actions.js.
const { showBudget } = createBudgetActions(store);

// The compaction preview's PLAN panel: plan/actions.js.
const { openPlan, closePlan } = createPlanActions(store, { report });

// Making a leaf the one on screen (tree, context, budget): leaf.js.
const { showLeaf, loadLeaf } = createLeafLoader(store, {
  problems, applyView, showBudget, openPlan, report,
});

// Opening and reloading the session, and the title bar: session.js.
const {
  renderSession, showSession, openAndShow, reload,
} = createSession(store, {
  problems, showLeaf, closePlan, report,
});

// Live reloads and the view after a write, one at a time: a reload that starts while a write's
// refresh runs would otherwise put back the selection from before the write.
const oneAtATime = serial(report);

// The write flows (compact, prune, continue, undo, edit) and their dialog: actions/flows.js.
const writes = createWrites({
  dialog: $('write-dialog'),
  bar: $('write-actions'),
  hooks: writeHooks(store, {
    loadLeaf, openAndShow, openPlan, closePlan, oneAtATime, report,
  }),
});

// The comparison and usage dialogs: overlays.js.
const { markForCompare, openCompare, openUsage } = createOverlays(store, { report });

// ---- The renderers: each draws one part of the state when it is set (in this order).
const body = document.body;
store.on('session', ({ session }) => {
  if (session) renderSession(session);
});
store.on('rows', ({ rows, allRows }) => {
  tree.setRows(rows);
  const all = allRows?.n ?? 0;
  $('tree-count').textContent = rows.length === all ? `${rows.length} rows` : `${rows.length} of ${all} rows`;
  drawMap();
});
store.on('selected', ({ rows, selected }) => {
  writes.selectionChanged(rows.at(selected) ?? null);
  tree.setSelected(selected);
});
store.on(['previews', 'planRows'], () => tree.refresh());
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
store.on('window', () => showBudget(leafAsked()).catch(report));
store.on('settings', ({ settings, session, leafId, shown }, previous) => {
  $('budget-window').placeholder = settings.contextWindow ? `${settings.contextWindow} (settings)` : 'auto';
  if (!session || !leafId) return;
  showBudget(leafAsked()).catch(report);
  // Only the panel's counts change: draw the context on screen again, without fetching it.
  // Until settings arrive the panel counts with o200k_base (context/actions.js).
  const before = previous.settings?.tokenizer ?? 'o200k_base';
  if (before !== settings.tokenizer && shown?.path === session.path) drawContext(shown.ctx);
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
  search: () => focusSearch(),
  fold: (event) => foldSelected(event.key),
  move: (event) => moveSelection(event.key),
};

// Every key goes through keys.js's table.
document.addEventListener('keydown', (event) => {
  const { overlay, plan, planStatus } = store.get();
  const action = routeKey(event, {
    screen: body.dataset.screen ?? null, // screens.js's
    dialog: writes.isOpen() ? 'write' : overlay,
    plan: plan != null,
    planOpen: planStatus === 'open',
  });
  if (action && keyActions[action](event) !== false) event.preventDefault();
});

let screens = null;

async function start() {
  renderLegend($('tree-legend'));
  store.set({ entry: null });
  // Settings read at start or saved: the budget bar's default window (a typed one wins) and
  // the context panel's tokenizer (the `settings` renderer above).
  screens = initScreens({ open: openAndShow, session: () => store.get().session, report, onSettings: (settings) => store.set({ settings }) });
  try {
    perfMark('open');
    // The home folder (paths inside it are shown as `~/…`) is asked for beside the session.
    const [first] = await Promise.all([openSession(null), homeDir().then(setHome, () => setHome(null))]);
    perfMark('opened');
    await showSession(first);
    await onSessionChanged((next) => {
      oneAtATime(() => reload(next)).catch(() => {}); // reported by oneAtATime
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
