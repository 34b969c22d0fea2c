// A write flow as data, and the pure reducer that steps through it (node --test).
//
// A flow (actions/specs.js) is `{ action, title, can, start, steps, marks?, before, streamed,
// apply, selectAfter, again }`:
// - `can({ row, plan })`: whether it can start on what is on screen (else nothing happens);
// - `start(env)`: resolves to the first answers (what its preview command said, …);
// - `steps`: `[{ id, view, next?, back?, apply?, final? }]`, shown in order. `id` is the
//   step's state (`form`, `preview`, `confirm`: `body[data-write]`); `view(answers, { session,
//   form })` → `{ lines, fields, prompt }`; `next: { label, leave?(answers, fields, env) }`
//   goes to the following step, `leave` resolving to `{ patch }` (answers to add) or
//   `{ error, patch }` (the step again, with the error); `back: id` offers Back to that step
//   (else Cancel); `apply(answers)` is the label of the button that writes; `final(answers)`:
//   nothing to do, only Close;
// - `marks(answers, stepId)`: the rows to outline in the tree (a Map id → class), or none;
// - `before(answers)`: the leaf whose context the result's diff starts from;
// - `streamed(answers)`: whether a summary streams while it writes;
// - `apply(answers, env, onEvent)`: the write; `selectAfter(result, answers)` →
//   `{ leafId, selectId }`, what the view shows after it;
// - `again`: after an error, `'restart'`, a function of the runner's controls, or null.
// flows.js runs the steps in the write dialog; `leave`, `start` and `apply` do the IO.

/** The step `id` of `spec`. */
export function stepOf(spec, id) {
  return spec.steps.find((s) => s.id === id);
}

/** The flow at its first step, with `answers` (what `start` resolved to). */
export function openFlow(spec, answers = {}) {
  return { step: spec.steps[0].id, answers, error: null, status: 'step', result: null, after: null };
}

/**
 * The next state of a flow. Events: `{ type: 'next', patch }` (the step's answers: on to the
 * following step), `{ type: 'invalid', error, patch }` (the same step again, with the error),
 * `{ type: 'back' }`, `{ type: 'apply' }` (the write starts: `running`), `{ type: 'done',
 * result }` (`after` is `selectAfter`'s answer), `{ type: 'failed', error }`, `{ type: 'close' }`.
 * An event the state does not allow leaves it as it is.
 */
export function reduceFlow(spec, state, event) {
  const step = stepOf(spec, state.step);
  const answers = { ...state.answers, ...(event.patch ?? {}) };
  switch (event.type) {
    case 'next': {
      if (state.status !== 'step' || !step?.next) return state;
      const following = spec.steps[spec.steps.indexOf(step) + 1];
      return following ? { ...state, step: following.id, answers, error: null } : state;
    }
    case 'invalid':
      return state.status === 'step' ? { ...state, answers, error: event.error } : state;
    case 'back':
      return state.status === 'step' && step?.back ? { ...state, step: step.back, error: null } : state;
    case 'apply':
      return state.status === 'step' && step?.apply ? { ...state, status: 'running', error: null } : state;
    case 'done':
      if (state.status !== 'running') return state;
      return { ...state, status: 'done', result: event.result, after: spec.selectAfter(event.result, state.answers) };
    case 'failed':
      return { ...state, status: 'error', error: event.error };
    case 'close':
      return { ...state, status: 'closed' };
    default:
      return state;
  }
}

/**
 * The buttons of the step on screen: `[{ id, label, primary, event }]` (`event`: what a click
 * sends: `close`, `back`, `next`, `apply`). Back (when the step goes back) or Cancel first,
 * then Next or the write; a final step has Close alone.
 */
export function stepButtons(spec, state) {
  const step = stepOf(spec, state.step);
  if (step.final?.(state.answers)) return [{ id: 'write-close', label: 'Close', primary: true, event: 'close' }];
  const first = step.back
    ? { id: 'write-back', label: 'Back', primary: false, event: 'back' }
    : { id: 'write-close', label: 'Cancel', primary: false, event: 'close' };
  const last = step.apply
    ? { id: 'write-apply', label: step.apply(state.answers), primary: true, event: 'apply' }
    : { id: 'write-next', label: step.next.label, primary: true, event: 'next' };
  return [first, last];
}

/** A refusal found before anything is written (no "Start over": trying again changes nothing). */
export function refusal(message) {
  return { kind: 'refused', message, final: true };
}

/** `selectAfter` of an append: the file's leaf, the last entry written selected. */
export function lastEntry(result) {
  return { leafId: null, selectId: result.entries?.at(-1)?.id ?? result.leafId };
}
