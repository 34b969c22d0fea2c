// The app's state: a plain object, changed only through `set`, watched with `subscribe`.
// No DOM, no IPC (tested by node --test).

/** A store holding `initial`; `set(patch)` merges and notifies subscribers with the new state. */
export function createStore(initial) {
  let state = { ...initial };
  const listeners = new Set();
  return {
    get: () => state,
    set(patch) {
      state = { ...state, ...patch };
      for (const listener of listeners) listener(state);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
