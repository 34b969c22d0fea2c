// The Search screen: every session's text, searched through the index (search_sessions), hits
// grouped by session with their state for the session's leaf; Enter or a click opens a hit.
// Owns the DOM of `#search`. Snippets are session text: set as text parts, the matches in
// <mark> elements made here, never parsed as HTML (dom.js).

import { elementMaker, makeButton, makeSearchInput } from '../dom.js';
import { shortPath } from '../paths.js';
import { latestRequest } from '../requests.js';
import { debounce } from '../library/format.js';
import { groupHits, resultLine, snippetParts, stateText, stepHit } from './format.js';

/**
 * Builds the screen inside `root`. `index(onProgress)` brings the index up to date, calling
 * `onProgress({ done, total })`; `query(text)` resolves to a search report; `onOpen(hit)` opens
 * a hit; `onClose()` goes back. Returns `{ show() }`.
 */
export function createSearchView(root, { index, query, onOpen, onClose }) {
  const doc = root.ownerDocument;
  const el = elementMaker(doc);
  const input = makeSearchInput(doc, {
    className: 'library-search',
    id: 'search-query',
    placeholder: 'words, "a phrase", pre*, role:user, tool:bash, project:NAME, agent:omp, after:2026-11-01',
    label: 'Search every session',
  });
  const count = el('span', 'library-count');
  count.id = 'search-count';
  const close = makeButton(doc, 'screen-button', 'Back (Esc)', { onClick: () => onClose() });
  const head = el('header', 'screen-head');
  head.append(el('span', 'pane-title', 'Search'), input, count, close);
  const progress = el('progress', 'search-progress');
  progress.id = 'search-progress';
  progress.hidden = true;
  const progressText = el('span', 'library-count');
  const progressLine = el('p', 'library-roots');
  progressLine.append(progress, ' ', progressText);
  progressLine.hidden = true;
  const list = el('div', 'library-list search-list');
  list.id = 'search-list';
  list.tabIndex = -1;
  root.replaceChildren(head, progressLine, list);

  const queries = latestRequest();
  let report = null;
  let failure = null;
  let order = [];
  let indexing = null;

  function hitKey(hit) {
    return `${hit.file}\n${hit.entryId}`;
  }

  function hitButton(hit) {
    const item = makeButton(doc, 'library-session search-hit');
    item.dataset.key = hitKey(hit);
    item.dataset.entry = hit.entryId ?? '';
    const state = stateText(hit.state, hit.summarizedBy);
    const meta = el('span', 'library-meta');
    const badge = el('span', state.className, state.label);
    badge.title = state.help;
    meta.append(el('span', 'badge', hit.toolName ? `${hit.role} · ${hit.toolName}` : hit.role), badge);
    if (hit.time) meta.append(el('span', 'library-when', hit.time));
    const snippet = el('span', 'search-snippet');
    for (const part of snippetParts(hit.snippet, hit.highlights ?? [])) {
      snippet.append(part.match ? el('mark', null, part.text) : doc.createTextNode(part.text));
    }
    item.title = `${hit.file} · entry ${hit.entryId}`;
    item.append(snippet, meta);
    item.addEventListener('click', () => onOpen(hit));
    return item;
  }

  function render() {
    const groups = groupHits(report?.hits ?? []);
    order = groups.flatMap((g) => g.hits.map(hitKey));
    count.textContent = failure ?? (report ? resultLine(report) : '');
    const sections = groups.map((g) => {
      const section = el('section', 'library-project');
      const name = el('h3', 'library-project-path', shortPath(g.file));
      name.title = g.file;
      section.append(name, ...g.hits.map(hitButton));
      return section;
    });
    if (sections.length === 0) {
      const hint = input.value.trim() === ''
        ? 'Type to search every session: user requests, replies, thinking, tool calls and results, summaries, labels.'
        : report ? 'No hit.' : 'Searching…';
      sections.push(el('p', 'hint', hint));
    }
    list.replaceChildren(...sections);
    root.dataset.hits = String(report?.hits.length ?? 0);
  }

  async function run() {
    const text = input.value.trim();
    const current = queries.begin();
    if (text === '') {
      [report, failure] = [null, null];
      render();
      return;
    }
    root.dataset.searching = 'true';
    try {
      const answer = await query(text);
      if (current()) [report, failure] = [answer, null];
    } catch (err) {
      // A query the index cannot read ("unbalanced quote", …) says why in place of the count.
      if (current()) [report, failure] = [null, err.message ?? String(err)];
    } finally {
      if (current()) {
        delete root.dataset.searching;
        render();
      }
    }
  }

  function focusHit(key) {
    for (const b of list.querySelectorAll('.search-hit')) {
      if (b.dataset.key === key) {
        b.focus();
        b.scrollIntoView({ block: 'nearest' });
      }
    }
  }

  const rerun = debounce(run, 200);
  input.addEventListener('input', rerun);
  input.addEventListener('keydown', async (event) => {
    // Esc clears a query first; on an empty one it goes back (screens.js).
    if (event.key === 'Escape' && input.value !== '') {
      event.preventDefault();
      event.stopPropagation();
      input.value = '';
      [report, failure] = [null, null];
      render();
      return;
    }
    if (event.key === 'ArrowDown' || event.key === 'Enter') {
      event.preventDefault();
      if (event.key === 'Enter') await run();
      focusHit(order[0]);
    }
  });
  // ↑/↓ move between hits (↑ from the first goes back to the query); Enter / click opens.
  list.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    const from = event.target.closest?.('.search-hit')?.dataset.key ?? null;
    if (event.key === 'ArrowUp' && from === order[0]) return input.focus();
    focusHit(stepHit(order, from, event.key === 'ArrowDown' ? 1 : -1));
  });

  /** Brings the index up to date once at a time, the progress bar following it. */
  function refreshIndex() {
    if (indexing) return indexing;
    progressLine.hidden = false;
    progress.hidden = false;
    progress.removeAttribute('value');
    progressText.textContent = 'Indexing the sessions…';
    root.dataset.indexing = 'true';
    indexing = index(({ done, total }) => {
      progress.max = Math.max(1, total);
      progress.value = done;
      progressText.textContent = `Indexing the sessions: ${done} of ${total} files`;
    }).then(
      () => {
        progressLine.hidden = true;
      },
      (err) => {
        progress.hidden = true;
        progressText.textContent = `The index could not be brought up to date: ${err.message ?? err}`;
      },
    ).finally(() => {
      delete root.dataset.indexing;
      indexing = null;
      if (input.value.trim() !== '') run();
    });
    return indexing;
  }

  return {
    /** Shows the screen: the query focused, the index brought up to date in the background. */
    show() {
      input.focus();
      input.select();
      render();
      refreshIndex();
    },
  };
}
