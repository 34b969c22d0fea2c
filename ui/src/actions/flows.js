// The app's write flows: compact, prune, continue from here (navigate), undo a compaction, edit
// a summary. Each is preview → confirmation (saying exactly what will be written) → apply →
// the result with a before/after diff of the context, in the write dialog.
//
// `body[data-write]` names the step on screen (`form`, `preview`, `confirm`, `running`, `done`,
// `error`), `body[data-write-action]` the flow, `body[data-write-error]` an error's kind: the
// end-to-end tests wait on them. Nothing here throws into the window: every failure becomes an
// error step or a status line.

import {
  cancelSummary, compact, compactionPreview, contextView, editSummary, editSummaryPreview, navigate,
  navigatePreview, providers, prune, prunePreview, undoCompaction, undoCompactionPreview,
} from '../ipc.js';
import { diffContexts } from '../diff/context-diff.js';
import { makeButton } from '../dom.js';
import {
  compactConfirmation, editConfirmation, errorText, navigateConfirmation, navigatePreviewLines,
  pruneConfirmation, prunePreviewLines, resultLines, summarySource, undoConfirmation,
} from './format.js';
import { foldProgress, initialProgress } from './progress.js';
import { readFields, renderProgress, renderStep, renderTimeLeft } from './view.js';

/** Row classes of the previews (styles.css: `.row.write-*`). */
export const WRITE_CLASSES = { pruned: 'write-pruned', abandoned: 'write-abandoned', target: 'write-target' };

const TITLES = {
  compact: 'Compact', prune: 'Prune tool outputs', navigate: 'Continue from here',
  undo: 'Undo compaction', edit: 'Edit summary',
};

/**
 * Wires the flows to `dialog` (a `<dialog>`) and the buttons in `bar`. `hooks`: `current()` →
 * `{ session, leafId, followFile, row, plan }`; `markRows(map | null)` outlines rows in the
 * tree (`null`: back to normal); `written(session, { leafId, selectId })` shows the re-read
 * file and resolves to the context it drew (`null` when overtaken); `reload()` reads the file
 * again after it changed; `openPlan()` previews a compaction of the leaf on screen;
 * `contextShown(leafId)` the context on screen when it is `leafId`'s, else `null`;
 * `report(err)` the status line.
 */
export function createWrites({ dialog, bar, hooks }) {
  const body = dialog.ownerDocument.body;
  let flow = null; // { action, running, cancelling, progress }
  let form = { instructions: '', source: { mode: 'configured' }, summarize: true };

  const buttons = {
    compact: barButton('write-open-compact', 'Compact… (Enter)', 'Summarize what the plan shows and append a compaction entry', () => startCompact()),
    prune: barButton('write-open-prune', 'Prune… (p)', "Preview replacing old tool outputs by a notice (oh-my-pi's pruning)", () => startPrune()),
    navigate: barButton('write-open-navigate', 'Continue from here… (n)', 'Make the selected entry where the agent continues', () => startNavigate()),
    undo: barButton('write-open-undo', 'Undo compaction… (u)', 'Continue from the entry before the selected compaction', () => startUndo()),
    edit: barButton('write-open-edit', 'Edit summary… (e)', "Append a corrected copy of the selected compaction's summary", () => startEdit()),
  };
  bar.replaceChildren(...Object.values(buttons));
  selectionChanged(null);

  function barButton(id, label, title, onClick) {
    return makeButton(dialog.ownerDocument, `write-open ${id}`, label, { id, title, onClick: () => onClick() });
  }

  /** The selected row changed: undo and edit need a compaction, navigate any entry. */
  function selectionChanged(row) {
    const compaction = row?.entryType === 'compaction';
    buttons.undo.disabled = !compaction;
    buttons.edit.disabled = !compaction;
    buttons.navigate.disabled = !row;
  }

  function setState(state, kind = null) {
    body.dataset.write = state;
    body.dataset.writeAction = flow?.action ?? '';
    if (kind) body.dataset.writeError = kind;
    else delete body.dataset.writeError;
  }

  function show(step, errorKind = null) {
    setState(step.state, errorKind);
    // A failure no step caught goes to the status line, never out of the click handler.
    const buttons = (step.buttons ?? []).map((b) => ({
      ...b, onClick: () => Promise.resolve().then(b.onClick).catch((err) => hooks.report(err)),
    }));
    renderStep(dialog, { title: TITLES[flow.action], ...step, buttons });
  }

  function begin(action) {
    if (flow?.running) return false;
    flow = { action, running: false };
    return true;
  }

  function close() {
    if (flow?.running) return;
    flow = null;
    if (dialog.open) dialog.close();
    delete body.dataset.write;
    delete body.dataset.writeAction;
    delete body.dataset.writeError;
    hooks.markRows(null);
    dialog.ownerDocument.getElementById('tree')?.focus();
  }

  /** Esc: cancels a running summary, else closes. */
  function escape() {
    if (flow?.running) requestCancel();
    else close();
  }

  dialog.addEventListener('cancel', (event) => {
    event.preventDefault();
    escape();
  });

  const closeButton = (label = 'Close') => ({ id: 'write-close', label, onClick: close });

  /** An error step; `changed` reloads the view first; `again` restarts the flow (for `held`, once the agent let go). */
  async function fail(err, again) {
    if (!flow) return hooks.report(err);
    flow.running = false;
    if (err?.kind === 'changed') {
      try {
        await hooks.reload();
      } catch (reloadErr) {
        hooks.report(reloadErr);
      }
    }
    const buttonsFor = [closeButton()];
    if (again) buttonsFor.unshift({ id: 'write-again', label: err?.kind === 'changed' ? 'Preview again' : err?.kind === 'held' ? 'Try again' : 'Start over', onClick: again });
    show({ state: 'error', error: errorText(err), buttons: buttonsFor }, err?.kind ?? 'error');
  }

  async function loadProviders() {
    try {
      return await providers();
    } catch {
      return null; // the picker then offers a typed provider and offline only
    }
  }

  function readSource(fields, list) {
    form = { ...form, instructions: fields.instructions ?? '', source: fields.source, summarize: fields.summarize ?? form.summarize };
    return summarySource(fields.source, list);
  }

  /** Runs `apply(onEvent)` with the live summary on screen, then shows the result and the diff. */
  async function run({ before, apply, streamed, view, again }) {
    flow.running = true;
    flow.progress = initialProgress();
    const cancel = { id: 'write-cancel', label: 'Cancel (Esc)', onClick: requestCancel };
    show({
      state: 'running',
      lines: [streamed ? 'The summary streams below; nothing is written until it is complete.' : 'Writing…'],
      progress: streamed ? flow.progress : null,
      buttons: streamed ? [cancel] : [],
    });
    // The countdown to the call's deadline ticks between events too.
    const ticker = streamed ? setInterval(() => flow && renderTimeLeft(dialog, flow.progress), 1000) : null;
    let result;
    try {
      result = await apply((event) => {
        if (!flow) return;
        // Stamped on arrival: `deadlineMs` counts from now.
        flow.progress = foldProgress(flow.progress, { ...event, at: Date.now() });
        renderProgress(dialog, flow.progress);
      });
    } catch (err) {
      return fail(err, again);
    } finally {
      if (ticker != null) clearInterval(ticker);
    }
    flow.running = false;
    const lines = resultLines(result);
    let diff = null;
    try {
      // The context the refreshed view drew; fetched here only when another view overtook it.
      const shown = await hooks.written(result.session, view(result));
      const after = shown ?? await contextView(view(result).leafId ?? result.leafId ?? null);
      diff = before ? diffContexts(before, after) : null;
    } catch (err) {
      hooks.report(err);
    }
    show({ state: 'done', lines, diff, buttons: [{ ...closeButton(), primary: true }] });
  }

  async function requestCancel() {
    if (!flow?.running || flow.cancelling) return;
    flow.cancelling = true;
    const button = dialog.querySelector('#write-cancel');
    if (button) {
      button.disabled = true;
      button.textContent = 'Cancelling…';
    }
    try {
      await cancelSummary();
    } catch (err) {
      hooks.report(err);
    }
  }

  /** The context of `leafId` (`null`: the file's leaf) before a write, for the diff. */
  async function contextBefore(leafId) {
    // The one on screen when it is that leaf's (the view is refreshed on every change).
    const shown = hooks.contextShown?.(leafId);
    if (shown) return shown;
    try {
      return await contextView(leafId);
    } catch {
      return null;
    }
  }

  // ---- Compaction: from the plan on screen.
  async function startCompact() {
    const plan = hooks.current().plan;
    if (!plan || !begin('compact')) return;
    if (plan.nothingToCompact) {
      return fail({ kind: 'refused', message: `nothing to compact: ${plan.reason ?? ''}` });
    }
    const list = await loadProviders();
    compactForm(plan, list);
  }

  function compactForm(plan, list, error = null) {
    show({
      state: 'form',
      error,
      lines: [`Compact the context of leaf ${plan.leafId}: the plan on screen says what is summarized and kept.`],
      fields: [{ kind: 'instructions', value: form.instructions }, { kind: 'source', providers: list, value: form.source }],
      buttons: [closeButton('Cancel'), { id: 'write-next', label: 'Next: confirm…', primary: true, onClick: () => compactConfirm(plan, list) }],
    });
  }

  async function compactConfirm(oldPlan, list) {
    const fields = readFields(dialog);
    const { source, error } = readSource(fields, list);
    if (error) return compactForm(oldPlan, list, error);
    const { instructions } = fields;
    let plan;
    try {
      // The instructions change the prompt: plan again with them.
      plan = await compactionPreview(oldPlan.leafId, null, instructions);
    } catch (err) {
      return fail(err, () => startCompactAgain());
    }
    if (plan.nothingToCompact) return fail({ kind: 'refused', message: `nothing to compact: ${plan.reason ?? ''}` });
    const session = hooks.current().session;
    const first = plan.calls?.[0];
    show({
      state: 'confirm',
      lines: compactConfirmation({ plan, session, source, providers: list, instructions }),
      prompt: first ? { title: `the exact prompt (call 1 of ${plan.calls.length})`, ...first } : null,
      buttons: [
        { id: 'write-back', label: 'Back', onClick: () => compactForm(oldPlan, list) },
        { id: 'write-apply', label: 'Compact: append the entry', primary: true, onClick: () => compactApply(plan, instructions, source) },
      ],
    });
  }

  async function compactApply(plan, instructions, source) {
    const before = await contextBefore(plan.leafId);
    await run({
      before,
      streamed: true,
      apply: (onEvent) => compact(plan.leafId, instructions, null, source, onEvent),
      view: (result) => ({ leafId: null, selectId: result.entries?.at(-1)?.id ?? result.leafId }),
      again: () => startCompactAgain(),
    });
  }

  /**
   * After an error: back to the form while the plan is on screen; after a reload (the file
   * changed) the plan is gone: the dialog closes and the plan is previewed afresh.
   */
  async function startCompactAgain() {
    flow = null;
    if (hooks.current().plan) return startCompact();
    close();
    return hooks.openPlan();
  }

  // ---- Prune (omp's tool-output pruning; offered for pi with a note, D20).
  async function startPrune() {
    if (!begin('prune')) return;
    const { followFile, leafId } = hooks.current();
    const leaf = followFile ? null : leafId;
    let preview;
    try {
      preview = await prunePreview(leaf);
    } catch (err) {
      return fail(err, () => restart(startPrune));
    }
    hooks.markRows(new Map((preview.prunedIds ?? []).map((id) => [id, WRITE_CLASSES.pruned])));
    const session = hooks.current().session;
    show({
      state: 'preview',
      lines: prunePreviewLines(preview),
      buttons: preview.nothing ? [{ ...closeButton(), primary: true }] : [closeButton('Cancel'), {
        id: 'write-next', label: 'Next: confirm…', primary: true,
        onClick: () => show({
          state: 'confirm',
          lines: pruneConfirmation({ preview, session }),
          buttons: [closeButton('Cancel'), {
            id: 'write-apply', label: 'Prune: rewrite the file', primary: true,
            onClick: async () => run({
              before: await contextBefore(leaf),
              streamed: false,
              apply: () => prune(leaf),
              view: (result) => ({ leafId: leaf, selectId: preview.prunedIds[0] ?? result.leafId }),
              again: () => restart(startPrune),
            }),
          }],
        }),
      }],
    });
  }

  function restart(start) {
    flow = null;
    hooks.markRows(null);
    return start();
  }

  // ---- Continue from the selected entry, with or without a branch summary (D14).
  async function startNavigate() {
    const { row } = hooks.current();
    if (!row || !begin('navigate')) return;
    const list = await loadProviders();
    navigateForm(row.id, list);
  }

  function navigateForm(targetId, list, error = null) {
    hooks.markRows(new Map([[targetId, WRITE_CLASSES.target]]));
    show({
      state: 'form',
      error,
      lines: [`Make ${targetId} the point the agent continues from.`],
      fields: [
        { kind: 'summarize', value: form.summarize },
        { kind: 'instructions', value: form.instructions },
        { kind: 'source', providers: list, value: form.source },
      ],
      buttons: [closeButton('Cancel'), { id: 'write-next', label: 'Preview…', primary: true, onClick: () => navigatePreviewStep(targetId, list) }],
    });
  }

  async function navigatePreviewStep(targetId, list) {
    const fields = readFields(dialog);
    const summarize = fields.summarize !== false;
    const { source, error } = summarize ? readSource(fields, list) : { source: { offline: false, provider: null } };
    form = { ...form, summarize };
    if (error) return navigateForm(targetId, list, error);
    const instructions = summarize ? fields.instructions : null;
    let preview;
    try {
      preview = await navigatePreview(targetId, summarize, instructions);
    } catch (err) {
      return fail(err, () => restart(startNavigate));
    }
    const marks = new Map((preview.abandonedIds ?? []).map((id) => [id, WRITE_CLASSES.abandoned]));
    marks.set(targetId, WRITE_CLASSES.target);
    hooks.markRows(marks);
    const session = hooks.current().session;
    const confirm = () => show({
      state: 'confirm',
      lines: navigateConfirmation({ preview, session, source, providers: list, instructions }),
      buttons: [
        { id: 'write-back', label: 'Back', onClick: () => navigateForm(targetId, list) },
        {
          id: 'write-apply', label: summarize ? 'Continue: append the branch summary' : 'Continue: append the marker', primary: true,
          onClick: async () => run({
            before: await contextBefore(preview.fromLeafId ?? null),
            streamed: summarize && !preview.nothingToSummarize,
            apply: (onEvent) => navigate(targetId, summarize, instructions, source, onEvent),
            view: (result) => ({ leafId: null, selectId: result.entries?.at(-1)?.id ?? result.leafId }),
            again: () => restart(startNavigate),
          }),
        },
      ],
    });
    show({
      state: 'preview',
      lines: navigatePreviewLines(preview),
      prompt: preview.call ? { title: `the exact prompt (maxTokens ${preview.call.maxTokens})`, ...preview.call } : null,
      buttons: [
        { id: 'write-back', label: 'Back', onClick: () => navigateForm(targetId, list) },
        { id: 'write-next', label: 'Next: confirm…', primary: true, onClick: confirm },
      ],
    });
  }

  // ---- Undo a compaction: continue from the entry before it (D14).
  async function startUndo() {
    const { row } = hooks.current();
    if (row?.entryType !== 'compaction' || !begin('undo')) return;
    let preview;
    try {
      preview = await undoCompactionPreview(row.id);
    } catch (err) {
      return fail(err);
    }
    hooks.markRows(new Map([[preview.targetId, WRITE_CLASSES.target]]));
    const session = hooks.current().session;
    show({
      state: 'confirm',
      lines: undoConfirmation({ preview, session }),
      buttons: [closeButton('Cancel'), {
        id: 'write-apply', label: 'Undo: append the marker', primary: true,
        onClick: async () => run({
          before: await contextBefore(null),
          streamed: false,
          apply: () => undoCompaction(row.id),
          view: (result) => ({ leafId: null, selectId: result.entries?.at(-1)?.id ?? result.leafId }),
          again: null,
        }),
      }],
    });
  }

  // ---- Edit the summary of the compaction in effect: a corrected entry, same boundary.
  async function startEdit() {
    const { row } = hooks.current();
    if (row?.entryType !== 'compaction' || !begin('edit')) return;
    let preview;
    try {
      preview = await editSummaryPreview(row.id);
    } catch (err) {
      return fail(err);
    }
    editForm(preview, preview.summary);
  }

  function editForm(preview, summary, error = null) {
    show({
      state: 'form',
      error,
      lines: [
        `Compaction ${preview.compactionId}: first kept entry ${preview.firstKeptEntryId}.`,
        ...(preview.note ? [preview.note] : []),
      ],
      fields: [{ kind: 'summary', value: summary }],
      buttons: [closeButton('Cancel'), {
        id: 'write-next', label: 'Next: confirm…', primary: true,
        onClick: () => {
          const text = readFields(dialog).summary ?? '';
          if (text.trim() === '') return editForm(preview, text, 'The summary is empty.');
          if (text === preview.summary) return editForm(preview, text, 'The summary is unchanged.');
          const session = hooks.current().session;
          return show({
            state: 'confirm',
            lines: editConfirmation({ preview, session, summary: text }),
            buttons: [
              { id: 'write-back', label: 'Back', onClick: () => editForm(preview, text) },
              {
                id: 'write-apply', label: 'Append the corrected summary', primary: true,
                onClick: async () => run({
                  before: await contextBefore(null),
                  streamed: false,
                  apply: () => editSummary(preview.compactionId, text),
                  view: (result) => ({ leafId: null, selectId: result.entries?.at(-1)?.id ?? result.leafId }),
                  again: null,
                }),
              },
            ],
          });
        },
      }],
    });
  }

  /** Starts flow `action` (`compact`, `prune`, `navigate`, `undo`, `edit`): keys.js's keys. */
  function start(action) {
    const run = { compact: startCompact, prune: startPrune, navigate: startNavigate, undo: startUndo, edit: startEdit }[action];
    run().catch((err) => hooks.report(err));
  }

  /** Adds `text` to the compaction dialog's instructions (the plan's "keep these"). */
  function addInstructions(text) {
    form = { ...form, instructions: form.instructions ? `${form.instructions}\n${text}` : text };
  }

  return { start, escape, isOpen: () => dialog.open, selectionChanged, addInstructions };
}
