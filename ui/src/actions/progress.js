// Pure folding of a write's progress events (`ProgressEvent`s from the summary Channel) into what
// the running dialog shows: one block of live text per summary call. No DOM.
//
// A retry or a fallback voids the text streamed since the last attempt (the model starts over),
// so that text is dropped and a note says why.

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
    calls.push({ call, provider: null, model: null, attempt: 0, text: '', notes: [], offline: false });
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
        return { ...c, provider: event.provider, model: event.model, attempt: event.attempt, text: '' };
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
