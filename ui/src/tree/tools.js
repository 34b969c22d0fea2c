// The tools above the tree (search, filter, metadata switch): each changes the store's `view`
// and recomputes the rows shown, so the tree, its count and the map follow through their
// renderers. The search field keeps its own keys (Enter, Shift+Enter, Esc): keys.js gives a
// field every key typed into it.

import { FILTERS } from './filter.js';
import { nextMatchIn } from './table.js';
import { $ } from '../dom.js';

/**
 * Wires `#tree-search`, `#tree-filter` (its options: filter.js's FILTERS) and `#tree-metadata`
 * to `store`. `applyView()` recomputes the shown rows, `select(k)` selects shown row `k` (the
 * search also looks in the previews loaded so far, the store's `previews`). Returns
 * `{ focusSearch() }` (the `/` key).
 */
export function initTreeTools(store, { applyView, select }) {
  // Search: `/` opens it, typing filters, Enter goes to the next match, Esc closes it.
  const search = $('tree-search');
  search.addEventListener('input', () => {
    store.set({ view: { ...store.get().view, query: search.value } });
    applyView();
  });
  search.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      const {
        rows, selected, view, previews,
      } = store.get();
      const next = nextMatchIn(rows, view.query, selected, previews, event.shiftKey ? -1 : 1);
      if (next >= 0) select(next);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      search.value = '';
      store.set({ view: { ...store.get().view, query: '' } });
      applyView();
      $('tree').focus();
    }
  });

  for (const { id, label } of FILTERS) {
    const option = document.createElement('option');
    option.value = id;
    option.textContent = label;
    $('tree-filter').append(option);
  }
  $('tree-filter').addEventListener('change', (event) => {
    store.set({ view: { ...store.get().view, filter: event.target.value } });
    applyView();
  });
  $('tree-metadata').addEventListener('change', (event) => {
    store.set({ view: { ...store.get().view, showMetadata: event.target.checked } });
    applyView();
  });

  return {
    focusSearch() {
      search.focus();
      search.select();
    },
  };
}
