// The app's entry point. It creates the store and connects the modules that act on it: each
// gets the store and the few actions of other modules it calls, so no module imports another's
// state. The order of the calls below is the order in which the listeners are registered (the
// map's scroll listener after the tree's own, the renderers, which the store runs in the order
// they were added, before the keys), so it is kept as it is.
// `body[data-state]` is `loading`, then `ready` or `error` (the end-to-end tests wait on it).

import {
  homeDir, onSessionChanged, openSession, saveGraph, startupLeaf,
} from './ipc.js';
import { setHome } from './paths.js';
import { createStore } from './store.js';
import { initialState } from './state.js';
import { serial } from './requests.js';
import { createLeafLoader } from './leaf.js';
import { createSession } from './session.js';
import { createOverlays } from './overlays.js';
import { subscribeRenderers } from './renderers.js';
import { listenKeys } from './key-actions.js';
import { initScreens } from './screens.js';
import { createWrites } from './actions/flows.js';
import { writeHooks } from './actions/hooks.js';
import { createBudgetActions } from './budget/actions.js';
import { createMapPanel } from './map/panel.js';
import { createGraphPanel } from './graph/panel.js';
import { createPlanActions } from './plan/actions.js';
import { createProblemsPanel } from './problems/view.js';
import { renderLegend } from './tree/legend.js';
import { perfMark } from './tree/perf.js';
import { createSelection } from './tree/selection.js';
import { initTreeTools } from './tree/tools.js';
import { createTreeView } from './tree/view.js';
import { $ } from './dom.js';


// The state, all of it (state.js): the renderers draw from it, the actions change it.
const store = createStore(initialState());

// The selection and what is shown of the tree: tree/selection.js.
const selection = createSelection(store, {
  report,
  pageRows: () => tree.pageRows(),
  showLeaf: (leafId, selectId) => showLeaf(leafId, selectId),
});
const {
  select, applyView, jumpTo, foldSelected, moveSelection,
} = selection;

// The tree pane's virtualized rows: tree/view.js.
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

// The branch graph, the map's wide mode: graph/panel.js.
const graph = createGraphPanel(store, {
  jumpTo: (id) => jumpTo(id),
  showLeaf: (leafId, selectId) => showLeaf(leafId, selectId),
  fetchPreviews: selection.fetchPreviews,
  exportPng: saveGraph,
  report,
});

// Errors and the file's diagnostics, under the title bar: problems/view.js.
const problems = createProblemsPanel($('problems'), { onJump: (id) => jumpTo(id) });

/** Shows `err` (a CommandError) in the problems panel; `doing` names what failed. */
function report(err, doing = null) {
  problems.showError(err, doing);
}

// The tree's tools (search, filter, metadata): tree/tools.js.
const { focusSearch } = initTreeTools(store, { applyView, select });

// The budget bar's requests and window field: budget/actions.js.
const { showBudget } = createBudgetActions(store);

// The compaction preview's PLAN panel: plan/actions.js.
const { openPlan, closePlan } = createPlanActions(store, { report });

// Making a leaf the one on screen (tree, context, budget): leaf.js.
const { showLeaf, loadLeaf } = createLeafLoader(store, {
  problems, applyView, fetchEntry: selection.fetchEntry, showBudget, openPlan, report,
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
const { markForCompare, openCompare, openUsage } = createOverlays(store, { report, jumpTo });

// The renderers, one per part of the state, in drawing order: renderers.js.
subscribeRenderers(store, {
  tree, drawMap, graph, writes, renderSession, showBudget, jumpTo, report,
});

// The Library and Settings screens: set by start() below, before any key can arrive.
let screens = null;

// Every key, through keys.js's table: key-actions.js.
listenKeys(store, {
  writes,
  screens: () => screens,
  openPlan,
  closePlan,
  markForCompare,
  openCompare,
  openUsage,
  focusSearch,
  foldSelected,
  moveSelection,
});

/** Opens the session the app was started with (or the demo), then follows the file's changes. */
async function start() {
  renderLegend($('tree-legend'));
  store.set({ entry: null });
  // Settings read at start or saved: the budget bar's default window (a typed one wins) and
  // the context panel's tokenizer (renderers.js's `settings` renderer).
  screens = initScreens({
    open: openAndShow,
    session: () => store.get().session,
    report,
    onSettings: (settings) => store.set({ settings }),
    // A search hit: its entry selected, with the context of its leaf (the file's when null).
    reveal: (entryId, leafId) => showLeaf(leafId, entryId),
  });
  try {
    perfMark('open');
    // The home folder (paths inside it are shown as `~/…`) is asked for beside the session.
    const [first] = await Promise.all([openSession(null), homeDir().then(setHome, () => setHome(null))]);
    perfMark('opened');
    // The leaf named with --leaf (the agents' /contextree); one the file lacks is reported
    // and the file's own leaf shown.
    const asked = await startupLeaf().then((id) => ({ id, err: null }), (err) => ({ id: null, err }));
    await showSession(first, asked.id);
    if (asked.err) report(asked.err, 'Showing the leaf named on the command line');
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
