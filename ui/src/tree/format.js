// Pure formatting of tree rows: gutters, markers, state classes, the legend. No DOM.

/** The states of `contextree_core::context::state::EntryState`, legend order, with their text. */
export const STATES = [
  { state: 'kept', label: 'kept', help: 'sent to the model as it is' },
  { state: 'summarized', label: 'summarized', help: 'behind a compaction: only in its summary' },
  { state: 'pruned', label: 'pruned', help: 'tool output replaced by the truncation notice' },
  { state: 'compaction', label: 'compaction', help: 'the compaction whose summary opens the context' },
  { state: 'branch-summary', label: 'branch summary', help: 'a branch summary on the path' },
  { state: 'excluded', label: 'not sent', help: 'on the path, but dropped by convertToLlm' },
  { state: 'hidden', label: 'hidden by an edit', help: 'pi ≥ 0.87: a context_edit entry leaves this message out (the context panel names the edit)' },
  { state: 'replaced', label: 'replaced by an edit', help: 'pi ≥ 0.87: sent with the content a context_edit entry gave it (the context panel names the edit)' },
  { state: 'old-compaction', label: 'old compaction', help: 'an earlier compaction: sends nothing itself' },
  { state: 'metadata', label: 'metadata', help: 'model / thinking changes, labels, custom state' },
  { state: 'off-path', label: 'off path', help: 'another branch' },
];

const KNOWN = new Set(STATES.map((s) => s.state));

/** CSS class of a row's state; unknown states (a newer core) look like metadata. */
export function stateClass(state) {
  return `state-${KNOWN.has(state) ? state : 'metadata'}`;
}

/** The legend text of a state. */
export function stateLabel(state) {
  return STATES.find((s) => s.state === state)?.label ?? String(state);
}

/**
 * `contextree tree`'s gutter in two-character cells: `│ ` per guide, then `├─` or `└─`. Past
 * `maxCells` cells only the innermost ones are drawn, after a `⋯ ` cell, so that deeply
 * branched sessions keep their text on screen.
 */
export function gutterText({ guides, connector }, maxCells = 12) {
  const cells = guides.map((guide) => (guide ? '│ ' : '  '));
  if (connector === 'tee') cells.push('├─');
  else if (connector === 'end') cells.push('└─');
  if (cells.length > maxCells) return `⋯ ${cells.slice(cells.length - maxCells + 1).join('')}`;
  return cells.join('');
}

/** `●` the selected leaf, `•` on its path, blank elsewhere (as `contextree tree`). */
export function marker({ isLeaf, onPath }) {
  if (isLeaf) return '●';
  return onPath ? '•' : ' ';
}

/** Index of the row with `id`, or -1. */
export function rowIndex(rows, id) {
  if (id == null) return -1;
  return rows.findIndex((row) => row.id === id);
}

/** The tree's count line: `shown` rows of `all` (`12 rows` when nothing is hidden). */
export function rowCountText(shown, all) {
  return shown === all ? `${shown} rows` : `${shown} of ${all} rows`;
}
