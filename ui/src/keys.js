// Every key of the app in one table: which key, in which layer (what is on top: a screen, a
// dialog, or the main screen), under which condition, runs which action. One test,
// `isTyping`, says when a key belongs to the focused element instead. Pure (node --test):
// key-actions.js runs the actions.

/** Where keys are text: every key typed there is the field's. */
const FIELDS = 'input, select, textarea, [contenteditable]';
/** Panes and dialogs whose keys scroll, select and open folds (Esc excepted); the graph walks. */
const OWN_KEYS = 'dialog, #context, #entry, #plan, #graph';
/** Elements that Enter and Space press. */
const PRESSED = 'button, summary, label';

/**
 * Whether `event` belongs to the focused element rather than to the app: a key typed into a
 * field; any key but Esc in a reading pane (context, entry, plan) or a dialog; Enter or Space
 * on a button, a `<summary>` or a label (they press it).
 */
export function isTyping(event) {
  const target = event.target;
  if (!target?.closest) return false;
  if (target.closest(FIELDS)) return true;
  if (event.key === 'Escape') return false; // Esc goes back a step from anywhere but a field
  if (target.closest(OWN_KEYS)) return true;
  return (event.key === 'Enter' || event.key === ' ') && Boolean(target.closest(PRESSED));
}

/** The tree's keys (tree/keys.js moves the selection; tree/fold.js folds). */
const MOVES = ['ArrowDown', 'ArrowUp', 'PageDown', 'PageUp', 'Home', 'End', 'Enter', 'g'];

/**
 * The key table, first match wins. `layer` (one or a list): `write` (the write dialog is open),
 * `compare` (the side-by-side or usage dialog: its own Esc closes it, nothing here), `screen`
 * (Library, Search or Settings), `main`. `when(state)`: an extra condition. `typing: true`: also while typing.
 */
export const KEYS = [
  // Chords (`ctrl`: Ctrl or ⌘ held, `shift` as given; a key without `ctrl` never matches
  // one) from the main screen and the screens, in fields too: search every session.
  { layer: ['main', 'screen'], ctrl: true, shift: true, key: ['F', 'f'], typing: true, action: 'search-all' },
  // The write dialog keeps every key; Esc cancels a running summary, else closes it.
  { layer: 'write', key: 'Escape', typing: true, action: 'write-escape' },
  // A screen: Esc goes back (from its fields too); `l` and `,` switch screens.
  { layer: 'screen', key: 'Escape', typing: true, action: 'close-screen' },
  { layer: 'screen', key: 'l', when: (s) => s.screen !== 'library', action: 'library' },
  { layer: 'screen', key: ',', when: (s) => s.screen !== 'settings', action: 'settings' },
  // The main screen: the write flows (Enter compacts while the plan is on screen) …
  { layer: 'main', key: 'Enter', when: (s) => s.planOpen, action: 'compact' },
  { layer: 'main', key: 'p', action: 'prune' },
  { layer: 'main', key: 'n', action: 'navigate' },
  { layer: 'main', key: 'u', action: 'undo' },
  { layer: 'main', key: 'e', action: 'edit' },
  // … the plan, comparison, usage, search …
  { layer: 'main', key: 'Escape', when: (s) => s.plan, action: 'close-plan' },
  { layer: 'main', key: 'c', action: 'plan' },
  { layer: 'main', key: 'm', action: 'mark' },
  { layer: 'main', key: '=', action: 'compare' },
  { layer: 'main', key: '$', action: 'usage' },
  { layer: 'main', key: '/', action: 'search' },
  // … the tree …
  { layer: 'main', key: ['ArrowLeft', 'ArrowRight'], action: 'fold' },
  { layer: 'main', key: MOVES, action: 'move' },
  // … and the screens.
  { layer: 'main', key: 'l', action: 'library' },
  { layer: 'main', key: ',', action: 'settings' },
  { layer: 'main', key: 'o', action: 'open' },
];

/**
 * What is on top: `state` is `{ screen, dialog, plan, planOpen }` (`screen`: `library`,
 * `settings` or null; `dialog`: `write`, `compare` or null; `plan`: a plan is held;
 * `planOpen`: it is on screen).
 */
export function layerOf(state) {
  if (state.screen) return 'screen';
  if (state.dialog) return state.dialog;
  return 'main';
}

/**
 * The `state` of `routeKey` from the app's state (state.js: its `overlay`, `plan` and
 * `planStatus`), the screen on top (`body[data-screen]`, screens.js's: `library`, `settings` or
 * null) and whether the write dialog is open (`writeOpen`).
 */
export function keyState({ overlay, plan, planStatus }, { screen, writeOpen }) {
  return {
    screen,
    dialog: writeOpen ? 'write' : overlay,
    plan: plan != null,
    planOpen: planStatus === 'open',
  };
}

/** The action of `event` in `state` (see `layerOf`), or null: the key is not the app's. */
export function routeKey(event, state, keys = KEYS) {
  if (event.altKey) return null;
  const chord = Boolean(event.ctrlKey || event.metaKey);
  const layer = layerOf(state);
  const typing = isTyping(event);
  for (const k of keys) {
    if (Array.isArray(k.layer) ? !k.layer.includes(layer) : k.layer !== layer) continue;
    if (Boolean(k.ctrl) !== chord || (k.ctrl && Boolean(k.shift) !== Boolean(event.shiftKey))) continue;
    if (Array.isArray(k.key) ? !k.key.includes(event.key) : k.key !== event.key) continue;
    if (typing && !k.typing) continue;
    if (k.when && !k.when(state)) continue;
    return k.action;
  }
  return null;
}
