// The tree's keyboard: a reducer from (selection, key) to a new selection and a command. Pure.

/**
 * `state` is `{ selected, rowCount, pageRows }` (`selected` a row index, -1 for none).
 * Returns `{ selected, command }` with `command` one of `null`, `'select-leaf'` (Enter: make the
 * selected row the leaf), `'file-leaf'` (`g`: back to the file's leaf); `null` when the key is
 * not the tree's.
 */
export function reduceKey({ selected, rowCount, pageRows = 20 }, key) {
  if (rowCount === 0) return null;
  const clamp = (i) => Math.max(0, Math.min(rowCount - 1, i));
  const from = selected < 0 ? -1 : selected;
  switch (key) {
    case 'ArrowDown':
      return { selected: clamp(from + 1), command: null };
    case 'ArrowUp':
      return { selected: clamp(from < 0 ? 0 : from - 1), command: null };
    case 'PageDown':
      return { selected: clamp(from + pageRows), command: null };
    case 'PageUp':
      return { selected: clamp(from - pageRows), command: null };
    case 'Home':
      return { selected: 0, command: null };
    case 'End':
      return { selected: rowCount - 1, command: null };
    case 'Enter':
      return from < 0 ? null : { selected: from, command: 'select-leaf' };
    case 'g':
      return { selected: from, command: 'file-leaf' };
    default:
      return null;
  }
}
