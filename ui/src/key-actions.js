// What each action of keys.js's table does, and the one keydown listener that routes every key
// of the app through that table. The table (keys.js) stays pure and tested; this is the only
// place where a key reaches the app, so one key never runs two actions.

import { keyState, routeKey } from './keys.js';

/**
 * Listens to the document's keys and runs their actions. `writes`: the write flows (flows.js);
 * `screens()`: the Library and Settings screens (screens.js; null until the app starts);
 * `openPlan` / `closePlan` (plan/actions.js); `markForCompare`, `openCompare`, `openUsage`
 * (overlays.js); `focusSearch` (tree/tools.js); `foldSelected(key)`, `moveSelection(key)`
 * (tree/selection.js). An action returning `false` did nothing: the key keeps its default.
 */
export function listenKeys(store, {
  writes, screens, openPlan, closePlan, markForCompare, openCompare, openUsage, focusSearch,
  foldSelected, moveSelection,
}) {
  const body = document.body;

  /** What keys.js's actions do; `false`: the key did nothing (its default is kept). */
  const keyActions = {
    'write-escape': () => writes.escape(),
    'close-screen': () => screens()?.back(),
    library: () => screens()?.showLibrary(),
    'search-all': () => screens()?.showSearch(),
    settings: () => screens()?.showSettings(),
    open: () => screens()?.pick(),
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
    const action = routeKey(event, keyState(store.get(), {
      screen: body.dataset.screen ?? null, // screens.js's
      writeOpen: writes.isOpen(),
    }));
    if (action && keyActions[action](event) !== false) event.preventDefault();
  });
}
