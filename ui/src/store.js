// The app's state: a plain object, changed only through `set`, watched with `subscribe` / `on`.
// The views draw from it: renderers.js registers one renderer per part of the state.
// No DOM, no IPC (tested by node --test).

/**
 * A store holding `initial`. `set(patch)` merges and notifies subscribers with
 * `(state, previous, patch)`; `on(keys, listener)` calls `listener(state, previous)` after every
 * `set` whose patch names one of `keys` (a key set again to the same value too: setting a part
 * of the state asks for it to be drawn). Listeners run in the order they were added.
 */
export function createStore(initial) {
  let state = { ...initial };
  const listeners = new Set();
  const subscribe = (listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  return {
    get: () => state,
    set(patch) {
      const previous = state;
      state = { ...state, ...patch };
      const next = state;
      for (const listener of [...listeners]) listener(next, previous, patch);
    },
    subscribe,
    on(keys, listener) {
      const names = [keys].flat();
      return subscribe((next, previous, patch) => {
        if (names.some((k) => Object.hasOwn(patch, k))) listener(next, previous);
      });
    },
  };
}
