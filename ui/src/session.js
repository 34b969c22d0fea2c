// The open session as a whole: opening one (the start, the Library, Open…, the rule-set switch,
// Settings), reloading it when an agent appends, and the title bar that names it. Opening starts
// the view over (leaf, selection, folds, plan, problems); a reload keeps the leaf and selection.

import { openSession } from './ipc.js';
import { sessionSummary } from './entries/format.js';
import { looksUnreadable, problemsSummary } from './problems/format.js';
import { dialectChoices, ruleSetText } from './settings/model.js';
import { selectedId } from './state.js';
import { $ } from './dom.js';

/**
 * The session's actions over `store`. `problems` is the problems panel; `showLeaf(leafId,
 * selectId)` makes a leaf the one on screen (leaf.js); `closePlan()` closes the compaction
 * preview (plan/actions.js); `report(err, doing)` shows an error. Wires the title bar's problem
 * count (`#session-diagnostics` opens and closes the panel). Returns `{ renderSession,
 * showSession, openAndShow, reload }`.
 */
export function createSession(store, { problems, showLeaf, closePlan, report }) {
  $('session-diagnostics').addEventListener('click', () => problems.toggle());

  /** The title bar's rule-set switch: detect, or one of the backend's rule sets; a change re-opens the file. */
  function renderRuleSwitch(session) {
    const sw = $('session-rules');
    if (!sw.options.length) {
      for (const c of dialectChoices(session.ruleSets)) {
        const o = document.createElement('option');
        o.value = c.id;
        o.textContent = c.id === '' ? 'rules: detect' : c.label;
        sw.append(o);
      }
      sw.addEventListener('change', () => {
        const { session: open } = store.get();
        if (open) openAndShow(open.file, sw.value || null);
      });
    }
    sw.value = session.requested ?? '';
    sw.hidden = false;
  }

  /** Draws `session` in the title bar (file, rules, summary, problem count) and the problems panel. */
  function renderSession(session) {
    document.title = `${session.fileName} · contextree`;
    $('session-file').textContent = session.fileName;
    $('session-file').title = session.file;
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
    if (store.get().session && session.file !== store.get().session.file) return;
    const { followFile, leafId } = store.get();
    const keep = selectedId(store.get());
    store.set({ session, previews: new Map() });
    // A leaf that is gone (the file was rewritten) falls back to the file's leaf.
    if (!(await showLeaf(followFile ? null : leafId, keep)) && !followFile) await showLeaf(null, keep);
    store.set({ reloads: store.get().reloads + 1 });
  }

  /**
   * Shows a just opened session from `leafId` (default: the file's leaf): tree, context,
   * budget, selection, folds, plan and problems start over. Resolves to whether the tree could
   * be shown.
   */
  function showSession(session, leafId = null) {
    if (store.get().plan) closePlan();
    problems.close();
    store.set({
      session, previews: new Map(), folded: new Set(), selected: -1, leafId: null, followFile: true, entry: null,
    });
    // A file that reads as no session at all says why at once.
    if (looksUnreadable(session)) problems.open();
    return showLeaf(leafId);
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

  return { renderSession, showSession, openAndShow, reload };
}
