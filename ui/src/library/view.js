// The Library screen: every pi / omp session on this machine by project, a search box, Open….
// Owns the DOM of `#library`; the library is fetched once per showing (a scan reads each
// file's header) and searched here, which is instant, instead of rescanning per keystroke.
// Session text (names, first requests, paths) is set as text only (dom.js).

import { shortPath } from '../paths.js';
import { elementMaker, makeButton, makeSearchInput } from '../dom.js';
import { latestRequest } from '../requests.js';
import {
  absoluteTime, debounce, entryCount, filterLibrary, humanSize, libraryCounts, relativeTime,
  rootsLine, sessionOrder, sessionTitle, stepSession,
} from './format.js';

/**
 * Builds the screen inside `root`. `load()` resolves to a `list_sessions` answer; `onOpen(path)`
 * opens a session; `onPick()` runs the Open… file picker; `onClose()` goes back. Returns
 * `{ show(currentPath), focusSearch() }`.
 *
 * Long by design: the view's closure, whose small inner functions share its DOM and state
 * (splitting it would only hand them around).
 */
export function createLibraryView(root, { load, onOpen, onPick, onClose, now = () => Date.now() }) {
  const el = elementMaker(root.ownerDocument);
  const doc = root.ownerDocument;
  const search = makeSearchInput(doc, {
    className: 'library-search',
    id: 'library-search',
    placeholder: 'Search name, first request, project, id',
    label: 'Search sessions',
  });
  const refresh = makeButton(doc, 'screen-button', 'Refresh');
  const pick = makeButton(doc, 'screen-button', 'Open file…', { id: 'library-open-file' });
  const close = makeButton(doc, 'screen-button', 'Back (Esc)');
  const count = el('span', 'library-count');
  count.id = 'library-count';
  const head = el('header', 'screen-head');
  head.append(el('span', 'pane-title', 'Library'), search, count, refresh, pick, close);
  const roots = el('p', 'library-roots');
  const warnings = el('ul', 'library-warnings');
  const list = el('div', 'library-list');
  list.id = 'library-list';
  list.tabIndex = -1;
  root.replaceChildren(head, roots, warnings, list);

  let library = null;
  let shown = [];
  let current = null;
  const loads = latestRequest();

  function sessionButton(s) {
    const item = makeButton(root.ownerDocument, 'library-session');
    item.dataset.path = s.path;
    if (s.path === current) item.classList.add('current');
    if (!s.valid) item.classList.add('invalid');
    item.title = s.path;
    const title = el('span', 'library-title', sessionTitle(s));
    const meta = el('span', 'library-meta');
    const when = el('span', 'library-when', relativeTime(s.modifiedMs, now()));
    when.title = s.modifiedMs == null ? '' : `last activity ${absoluteTime(s.modifiedMs)} (${s.modified})`;
    const parts = [
      el('span', 'badge', s.dialect ?? '?'),
      when,
      el('span', 'library-size', humanSize(s.size)),
      el('span', 'library-entries', entryCount(s.entryCount)),
    ];
    if (s.name && s.firstRequest) parts.push(el('span', 'library-request', s.firstRequest));
    if (!s.valid) parts.push(el('span', 'library-bad', 'not a session header'));
    meta.append(...parts);
    item.append(title, meta);
    item.addEventListener('click', () => onOpen(s.path));
    return item;
  }

  function render() {
    shown = filterLibrary(library?.projects ?? [], search.value);
    const { projects, sessions } = libraryCounts(shown);
    const total = library?.sessionCount ?? 0;
    count.textContent = sessions === total
      ? `${total} sessions · ${projects} projects`
      : `${sessions} of ${total} sessions`;
    roots.textContent = library ? `Looked in ${rootsLine(library.roots)}` : '';
    warnings.replaceChildren(...(library?.warnings ?? []).map((w) => el('li', 'diag-warning', w)));
    const groups = shown.map((p) => {
      const group = el('section', 'library-project');
      const name = el('h3', 'library-project-path', shortPath(p.project));
      if (!p.certain) name.title = 'Path guessed from the folder name';
      const when = el('span', 'library-when', relativeTime(p.lastActivityMs, now()));
      when.title = absoluteTime(p.lastActivityMs);
      name.append(' ', when);
      group.append(name, ...p.sessions.map(sessionButton));
      return group;
    });
    if (groups.length === 0) {
      const empty = library && total === 0
        ? 'No sessions found. Open a file, or set the library folders in Settings.'
        : library ? 'No session matches.' : 'Reading the session folders…';
      groups.push(el('p', 'hint', empty));
    }
    list.replaceChildren(...groups);
    root.dataset.sessions = String(sessions);
  }

  const rerender = debounce(render, 120);
  search.addEventListener('input', rerender);
  search.addEventListener('keydown', (event) => {
    // Esc clears a search first; on an empty one it goes back (screens.js).
    if (event.key === 'Escape' && search.value !== '') {
      event.preventDefault();
      event.stopPropagation();
      search.value = '';
      render();
      return;
    }
    if (event.key === 'ArrowDown' || event.key === 'Enter') {
      event.preventDefault();
      render();
      const first = list.querySelector('.library-session');
      if (first && event.key === 'Enter' && libraryCounts(shown).sessions === 1) onOpen(first.dataset.path);
      else first?.focus();
    }
  });
  // ↑/↓ move between sessions; Enter / click opens (a button's own behaviour).
  list.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    const from = event.target.closest?.('.library-session')?.dataset.path ?? null;
    if (event.key === 'ArrowUp' && from === sessionOrder(shown)[0]) return search.focus();
    const to = stepSession(sessionOrder(shown), from, event.key === 'ArrowDown' ? 1 : -1);
    for (const b of list.querySelectorAll('.library-session')) {
      if (b.dataset.path === to) {
        b.focus();
        b.scrollIntoView({ block: 'nearest' });
      }
    }
  });
  refresh.addEventListener('click', () => reload());
  pick.addEventListener('click', () => onPick());
  close.addEventListener('click', () => onClose());

  async function reload() {
    const current = loads.begin();
    root.dataset.loading = 'true';
    render();
    try {
      const answer = await load();
      if (current()) library = answer;
    } finally {
      if (current()) {
        delete root.dataset.loading;
        render();
      }
    }
  }

  return {
    /** Shows the screen, rescanning the folders; `currentPath` is the open session's. */
    show(currentPath) {
      current = currentPath;
      search.focus();
      search.select();
      return reload();
    },
    focusSearch() {
      search.focus();
    },
  };
}
