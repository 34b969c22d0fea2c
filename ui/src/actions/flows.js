// Runs the write flows (actions/specs.js, stepped by actions/wizard.js) in the write dialog:
// each is its steps (form, preview, confirmation saying exactly what will be written) → apply →
// the result with a before/after diff of the context.
//
// `body[data-write]` names the step on screen (`form`, `preview`, `confirm`, `running`, `done`,
// `error`), `body[data-write-action]` the flow, `body[data-write-error]` an error's kind: the
// end-to-end tests wait on them. Nothing here throws into the window: every failure becomes an
// error step or a status line.

import * as ipc from '../ipc.js';
import { diffContexts } from '../diff/context-diff.js';
import { makeButton } from '../dom.js';
import { errorText, resultLines, summarySource } from './format.js';
import { foldProgress, initialProgress } from './progress.js';
import { FLOWS } from './specs.js';
import { openFlow, reduceFlow, stepButtons, stepOf } from './wizard.js';
import { readFields, renderProgress, renderStep, renderTimeLeft } from './view.js';

export { WRITE_CLASSES } from './specs.js';

/**
 * Wires the flows to `dialog` (a `<dialog>`) and the buttons in `bar`. `hooks`: `current()` →
 * `{ session, leafId, followFile, row, plan }`; `markRows(map | null)` outlines rows in the
 * tree (`null`: back to normal); `written(session, { leafId, selectId })` shows the re-read
 * file and resolves to the context it drew (`null` when overtaken); `reload()` reads the file
 * again after it changed; `openPlan()` previews a compaction of the leaf on screen;
 * `contextShown(leafId)` the context on screen when it is `leafId`'s, else `null`;
 * `report(err)` the status line.
 *
 * Long by design: the view's closure, whose small inner functions share its DOM and state
 * (splitting it would only hand them around).
 */
export function createWrites({ dialog, bar, hooks }) {
  const doc = dialog.ownerDocument;
  const body = doc.body;
  // The flow on screen: `{ spec, state, running, cancelling, progress }` (`state`: wizard.js's).
  let flow = null;
  // The form as last filled in, offered again by the next form (any flow's).
  let form = { instructions: '', source: { mode: 'configured' }, summarize: true };

  /** What the specs get: the IPC calls, what is on screen, the summary sources, the form. */
  const env = {
    ipc,
    current: () => hooks.current(),
    async providers() {
      try {
        return await ipc.providers();
      } catch {
        return null; // the picker then offers a typed provider and offline only
      }
    },
    readSource(fields, list) {
      form = { ...form, instructions: fields.instructions ?? '', source: fields.source, summarize: fields.summarize ?? form.summarize };
      return summarySource(fields.source, list);
    },
    remember(patch) {
      form = { ...form, ...patch };
    },
  };

  const bars = {
    compact: ['write-open-compact', 'Compact… (Enter)', 'Summarize what the plan shows and append a compaction entry'],
    prune: ['write-open-prune', 'Prune… (p)', "Preview replacing old tool outputs by a notice (oh-my-pi's pruning)"],
    navigate: ['write-open-navigate', 'Continue from here… (n)', 'Make the selected entry where the agent continues'],
    undo: ['write-open-undo', 'Undo compaction… (u)', 'Continue from the entry before the selected compaction'],
    edit: ['write-open-edit', 'Edit summary… (e)', "Append a corrected copy of the selected compaction's summary"],
  };
  const buttons = Object.fromEntries(Object.entries(bars).map(([action, [id, label, title]]) => [
    action, makeButton(doc, `write-open ${id}`, label, { id, title, onClick: () => start(action) }),
  ]));
  bar.replaceChildren(...Object.values(buttons));
  selectionChanged(null);

  /** The selected row changed: undo and edit need a compaction, navigate any entry. */
  function selectionChanged(row) {
    for (const action of ['navigate', 'undo', 'edit']) buttons[action].disabled = !FLOWS[action].can({ row });
  }

  function setState(state, kind = null) {
    body.dataset.write = state;
    body.dataset.writeAction = flow?.spec.action ?? '';
    if (kind) body.dataset.writeError = kind;
    else delete body.dataset.writeError;
  }

  /** Draws `step` (view.js's `renderStep` shape) with the flow's title. */
  function draw(step, errorKind = null) {
    setState(step.state, errorKind);
    // A failure no step caught goes to the status line, never out of the click handler.
    const wrapped = (step.buttons ?? []).map((b) => ({
      ...b, onClick: () => Promise.resolve().then(b.onClick).catch((err) => hooks.report(err)),
    }));
    renderStep(dialog, { title: flow.spec.title, ...step, buttons: wrapped });
  }

  /** Draws the flow's current step: its rows outlined, its view, its buttons. */
  function showStep() {
    const { spec, state } = flow;
    const step = stepOf(spec, state.step);
    const marks = spec.marks?.(state.answers, step.id);
    if (marks) hooks.markRows(marks);
    const view = step.view(state.answers, { session: hooks.current().session, form });
    const actions = { close, back, next, apply };
    draw({
      state: step.id,
      error: state.error,
      ...view,
      buttons: stepButtons(spec, state).map(({ event, ...b }) => ({ ...b, onClick: actions[event] })),
    });
  }

  /** Starts flow `action` (`compact`, `prune`, `navigate`, `undo`, `edit`): keys.js's keys, the bar. */
  function start(action) {
    run(FLOWS[action]).catch((err) => hooks.report(err));
  }

  async function run(spec) {
    if (!spec.can(hooks.current()) || flow?.running) return;
    const mine = { spec, state: null, running: false };
    flow = mine;
    let answers;
    try {
      answers = await spec.start(env);
    } catch (err) {
      if (flow === mine) await fail(err, againOf(spec));
      else hooks.report(err);
      return;
    }
    if (flow !== mine) return; // closed, or another flow started meanwhile
    mine.state = openFlow(spec, answers);
    showStep();
  }

  function back() {
    flow.state = reduceFlow(flow.spec, flow.state, { type: 'back' });
    showStep();
  }

  /** Next: the step's `leave` (reads the form, may call a preview), then the following step. */
  async function next() {
    const mine = flow;
    const { spec, state } = mine;
    const leave = stepOf(spec, state.step).next?.leave;
    let out = { patch: {} };
    if (leave) {
      try {
        out = await leave(state.answers, readFields(dialog), env);
      } catch (err) {
        if (flow === mine) await fail(err, againOf(spec));
        else hooks.report(err);
        return;
      }
    }
    if (flow !== mine) return;
    mine.state = reduceFlow(spec, mine.state, out.error ? { type: 'invalid', error: out.error, patch: out.patch } : { type: 'next', patch: out.patch });
    showStep();
  }

  function close() {
    if (flow?.running) return;
    flow = null;
    if (dialog.open) dialog.close();
    delete body.dataset.write;
    delete body.dataset.writeAction;
    delete body.dataset.writeError;
    hooks.markRows(null);
    doc.getElementById('tree')?.focus();
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

  /** After an error, what "Start over" / "Try again" / "Preview again" does (null: nothing). */
  function againOf(spec) {
    if (!spec.again) return null;
    const restart = () => {
      flow = null;
      hooks.markRows(null);
      return run(spec);
    };
    if (spec.again === 'restart') return restart;
    return () => spec.again({
      current: hooks.current,
      restart,
      close: () => {
        flow = null;
        close();
      },
      openPlan: () => hooks.openPlan(),
    });
  }

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
    if (flow.state) flow.state = reduceFlow(flow.spec, flow.state, { type: 'failed', error: err });
    const list = [{ id: 'write-close', label: 'Close', onClick: close }];
    // A refusal found before writing is final: trying again would say the same.
    if (again && !err?.final) {
      const label = err?.kind === 'changed' ? 'Preview again' : err?.kind === 'held' ? 'Try again' : 'Start over';
      list.unshift({ id: 'write-again', label, onClick: again });
    }
    draw({ state: 'error', error: errorText(err), buttons: list }, err?.kind ?? 'error');
  }

  /** The write: the live summary on screen, then the result and the diff of the context. */
  async function apply() {
    const mine = flow;
    const { spec } = mine;
    const answers = mine.state.answers;
    const before = await contextBefore(spec.before(answers));
    if (flow !== mine || mine.running) return;
    mine.state = reduceFlow(spec, mine.state, { type: 'apply' });
    const streamed = spec.streamed(answers);
    mine.running = true;
    mine.progress = initialProgress();
    draw({
      state: 'running',
      lines: [streamed ? 'The summary streams below; nothing is written until it is complete.' : 'Writing…'],
      progress: streamed ? mine.progress : null,
      buttons: streamed ? [{ id: 'write-cancel', label: 'Cancel (Esc)', onClick: requestCancel }] : [],
    });
    // The countdown to the call's deadline ticks between events too.
    const ticker = streamed ? setInterval(() => flow && renderTimeLeft(dialog, flow.progress), 1000) : null;
    let result;
    try {
      result = await spec.apply(answers, env, (event) => {
        if (!flow) return;
        // Stamped on arrival: `deadlineMs` counts from now.
        flow.progress = foldProgress(flow.progress, { ...event, at: Date.now() });
        renderProgress(dialog, flow.progress);
      });
    } catch (err) {
      return fail(err, againOf(spec));
    } finally {
      if (ticker != null) clearInterval(ticker);
    }
    mine.running = false;
    mine.state = reduceFlow(spec, mine.state, { type: 'done', result });
    const { after } = mine.state;
    let diff = null;
    try {
      // The context the refreshed view drew; fetched here only when another view overtook it.
      const shown = await hooks.written(result.session, after);
      const now = shown ?? await ipc.contextView(after.leafId ?? result.leafId ?? null);
      diff = before ? diffContexts(before, now) : null;
    } catch (err) {
      hooks.report(err);
    }
    if (flow !== mine) return; // closed while the view was refreshed
    draw({ state: 'done', lines: resultLines(result), diff, buttons: [{ id: 'write-close', label: 'Close', primary: true, onClick: close }] });
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
      await ipc.cancelSummary();
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
      return await ipc.contextView(leafId);
    } catch {
      return null;
    }
  }

  /** Adds `text` to the compaction dialog's instructions (the plan's "keep these"). */
  function addInstructions(text) {
    form = { ...form, instructions: form.instructions ? `${form.instructions}\n${text}` : text };
  }

  return { start, escape, isOpen: () => dialog.open, selectionChanged, addInstructions };
}
