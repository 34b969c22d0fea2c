// The budget bar's requests and its window field. The bar is asked for again whenever the leaf,
// the typed window or the settings change, often while an older answer is still on its way:
// only the latest request's answer is drawn.

import { budget } from '../ipc.js';
import { latestRequest } from '../requests.js';
import { parseWindow } from './bar.js';
import { $ } from '../dom.js';

/**
 * Wires the bar's window field (`#budget-window`: a window typed there goes into the store's
 * `window` on change or Enter; what does not parse empties the field) and returns
 * `{ showBudget(leafId) }`, which fetches the bar of `leafId` (`null`: the file's leaf) into
 * the store's `budget` and resolves when it is there (or dropped: a newer request was made).
 */
export function createBudgetActions(store) {
  // "Latest request wins" (requests.js): an answer overtaken by a newer request is dropped.
  const budgetRequests = latestRequest();

  /** Fetches the bar of `leafId` into the store; an answer overtaken by a newer request is dropped. */
  function showBudget(leafId) {
    const current = budgetRequests.begin();
    const { window: typed, settings } = store.get();
    return budget(leafId, typed ?? settings?.contextWindow ?? null).then((b) => {
      if (current()) store.set({ budget: b });
    });
  }

  function applyWindow() {
    const input = $('budget-window');
    const window = parseWindow(input.value);
    if (window == null) input.value = '';
    if (window === store.get().window) return;
    store.set({ window });
  }
  $('budget-window').addEventListener('change', applyWindow);
  $('budget-window').addEventListener('keydown', (event) => {
    if (event.key === 'Enter') applyWindow();
  });

  return { showBudget };
}
