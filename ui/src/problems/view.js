// The problems panel under the title bar: the last error (any command's) with its kind and
// cause, and the open file's diagnostics by line; a line that holds an entry is a button that
// selects it. Dismissible (×, or Esc inside it); the title bar's problem count opens it again.

import { elementMaker, makeButton } from '../dom.js';
import { diagnosticItems, errorText, lineIndex } from './format.js';

/**
 * Builds the panel in `root`; `onJump(entryId)` selects an entry.
 * Returns `{ showError(err, doing?), setSession(session), setRows(rows), open(), close(), toggle() }`.
 */
export function createProblemsPanel(root, { onJump }) {
  const el = elementMaker(root.ownerDocument);
  let error = null;
  let session = null;
  let index = new Map();

  function render() {
    const title = el('span', 'pane-title', 'Problems');
    const dismiss = makeButton(root.ownerDocument, 'problems-close', '×', { title: 'Dismiss', onClick: () => close() });
    dismiss.setAttribute('aria-label', 'Dismiss');
    const head = el('header', 'problems-head');
    head.append(title);
    const parts = [head];
    if (error) {
      const line = el('p', 'problems-error', error);
      line.id = 'problems-error';
      parts.push(line);
    }
    if (session && session.diagnostics.length > 0) {
      head.append(el('span', 'pane-sub', `${session.fileName}: ${session.diagnostics.length} in the file`));
      const { items, more } = diagnosticItems(session.diagnostics, index);
      const list = el('ul', 'problems-list');
      for (const d of items) {
        const item = el('li', `diag diag-${d.severity}`);
        let where;
        if (d.entryId) {
          where = makeButton(root.ownerDocument, 'entry-link problems-line', d.where, {
            title: `Select entry ${d.entryId}`, onClick: () => onJump(d.entryId),
          });
          where.dataset.entry = d.entryId;
        } else {
          where = el('span', 'problems-line', d.where);
          where.title = d.line > 0 ? 'No entry was read from this line' : 'The whole file';
        }
        item.append(where, el('span', 'problems-severity', ` ${d.severity}: `), el('span', 'problems-message', d.message));
        list.append(item);
      }
      if (more > 0) list.append(el('li', 'hint', `… and ${more} more`));
      parts.push(list);
    }
    head.append(dismiss);
    root.replaceChildren(...parts);
  }

  root.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    event.stopPropagation();
    close();
  });

  function open() {
    if (!error && !(session?.diagnostics.length > 0)) return;
    render();
    root.hidden = false;
  }
  function close() {
    root.hidden = true;
    error = null;
  }

  return {
    showError(err, doing = null) {
      error = errorText(err, doing);
      render();
      root.hidden = false;
    },
    setSession(next) {
      session = next;
      index = new Map();
      if (!root.hidden) render();
    },
    setRows(rows) {
      index = lineIndex(rows);
      if (!root.hidden) render();
    },
    open,
    close,
    toggle() {
      if (root.hidden) open();
      else close();
    },
  };
}
