// Pure folding of a write's progress events (`ProgressEvent`s from the summary Channel) into what
// the running dialog shows: one block of live text per summary call. No DOM.
//
// A retry or a fallback voids the text streamed since the last attempt (the model starts over),
// so that text is dropped and a note says why.
//
// Each summary call has a total deadline (contextree's `summaryDeadlineSecs`): an `attempt` says
// how many milliseconds of it are left (`deadlineMs`), and the flow stamps each event with the
// time it arrived (`at`, ms), so the dialog can count down to `deadlineAt` until the call is
// `done`.

const CALL_LABELS = {
  history: 'history summary',
  turnPrefix: 'turn-prefix summary',
  short: 'short summary',
  branch: 'branch summary',
};

/** Display name of a summary call. */
export function callLabel(call) {
  return CALL_LABELS[call] ?? String(call);
}

/** The state before any event. */
export function initialProgress() {
  return { calls: [], writing: false, events: 0 };
}

function withCall(state, call, update) {
  const calls = state.calls.slice();
  let index = calls.findIndex((c) => c.call === call);
  if (index < 0) {
    calls.push({ call, provider: null, model: null, attempt: 0, text: '', notes: [], offline: false, done: false, deadlineAt: null });
    index = calls.length - 1;
  }
  calls[index] = update({ ...calls[index], notes: calls[index].notes.slice() });
  return { ...state, calls, events: state.events + 1 };
}

const seconds = (ms) => `${(Number(ms) / 1000).toFixed(1)} s`;

/** The state after `event`; unknown events only count. */
export function foldProgress(state, event) {
  switch (event?.kind) {
    case 'attempt':
      return withCall(state, event.call, (c) => {
        const who = `${event.provider}${event.model ? ` · ${event.model}` : ''}`;
        if (event.attempt > 0) c.notes.push(`attempt ${event.attempt + 1} of ${who}`);
        const deadlineAt = Number.isFinite(event.deadlineMs) && Number.isFinite(event.at) ? event.at + event.deadlineMs : c.deadlineAt;
        return { ...c, provider: event.provider, model: event.model, attempt: event.attempt, text: '', deadlineAt };
      });
    case 'delta':
      return withCall(state, event.call, (c) => ({ ...c, text: c.text + (event.text ?? '') }));
    case 'retry':
      return withCall(state, event.call, (c) => {
        c.notes.push(`retry in ${seconds(event.delayMs)}: ${event.error}`);
        return { ...c, text: '' };
      });
    case 'fallback':
      return withCall(state, event.call, (c) => {
        c.notes.push(`${event.provider} failed (${event.error}); trying the next provider`);
        return { ...c, text: '' };
      });
    case 'done':
      return withCall(state, event.call, (c) => ({ ...c, done: true }));
    case 'offline':
      return withCall(state, event.call, (c) => {
        c.notes.push('no model: the offline extractive summary is used');
        return { ...c, offline: true };
      });
    case 'writing':
      return { ...state, writing: true, events: state.events + 1 };
    default:
      return { ...state, events: state.events + 1 };
  }
}

/** The heading of a call's block: `"history summary · local · qwen2.5:7b"`. */
export function callHeading(c) {
  if (c.offline) return `${callLabel(c.call)} · offline`;
  const who = c.provider ? ` · ${c.provider}${c.model ? ` · ${c.model}` : ''}` : '';
  return `${callLabel(c.call)}${who}`;
}

/** The one-line status of the run. */
export function progressStatus(state) {
  if (state.writing) return 'Summaries done; writing the entry…';
  if (state.calls.length === 0) return 'Starting…';
  const last = state.calls[state.calls.length - 1];
  return `Streaming the ${callLabel(last.call)}…`;
}

/** `m:ss` (`h:mm:ss` from an hour on) of `ms`, whole seconds rounded up, never negative. */
export function formatClock(ms) {
  const total = Math.max(0, Math.ceil(Number(ms) / 1000)) || 0;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/**
 * `"time left: 4:32"` until the soonest deadline of the calls still running at `now` (ms), or
 * null when no running call has one (all done, offline, or the events carried none). The run
 * fails when any call misses its deadline, so the soonest one is the one that matters.
 */
export function timeLeft(state, now) {
  if (state.writing) return null;
  const ends = state.calls.filter((c) => !c.done && !c.offline && c.deadlineAt != null).map((c) => c.deadlineAt);
  if (ends.length === 0) return null;
  return `time left: ${formatClock(Math.min(...ends) - now)}`;
}
