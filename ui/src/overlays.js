// The two read-only dialogs over the main screen: two leaves' contexts side by side (`m` marks
// a leaf, `=` compares) and the recorded usage (`$`). They share one overlay state, so that
// while either is up the main screen's keys stay off (keys.js's `compare` layer).

import { compareView, usageReport, weightReport } from './ipc.js';
import { renderCompare } from './compare/view.js';
import { renderUsage } from './usage/view.js';
import { $ } from './dom.js';

/**
 * Wires `#compare-mark`, `#compare-open` and `#show-usage` to `store` (`compareLeaf`,
 * `overlay`); `report(err, doing)` shows an error, `jumpTo(id)` selects an entry in the tree.
 * Returns `{ markForCompare, openCompare, openUsage }` (the `m`, `=` and `$` keys).
 */
export function createOverlays(store, { report, jumpTo }) {

  /** `m`: remember the shown leaf as side A of a comparison. */
  function markForCompare() {
    const leafId = store.get().shown?.leafId || null;
    if (leafId) store.set({ compareLeaf: leafId });
  }

  /** Shows `dialog` (drawn by `render(dialog)`) as the comparison or usage overlay. */
  function showOverlay(dialog, render) {
    render(dialog);
    store.set({ overlay: 'compare' });
    dialog.addEventListener('close', () => store.set({ overlay: null }), { once: true });
  }

  /** `=`: the marked leaf's context (A) beside the shown leaf's (B). */
  async function openCompare() {
    const left = store.get().compareLeaf;
    const right = store.get().shown?.leafId || null;
    if (!left) return;
    try {
      const report = await compareView(left, right);
      showOverlay($('compare-dialog'), (dialog) => renderCompare(dialog, report, () => dialog.close()));
    } catch (err) {
      report(err, 'comparing two leaves');
    }
  }

  /**
   * `$`: what the session cost, as the agents recorded it, and what made the shown leaf's
   * context grow. The usage still shows when the growth cannot be read.
   */
  async function openUsage() {
    const leafId = store.get().shown?.leafId || null;
    const [usage, weight] = await Promise.allSettled([usageReport(), weightReport(leafId)]);
    if (usage.status === 'rejected') {
      report(usage.reason, 'summing the usage');
      return;
    }
    if (weight.status === 'rejected') report(weight.reason, 'reading the context growth');
    showOverlay($('usage-dialog'), (dialog) => {
      // The dialog is modal: it closes before the tree can show the entry.
      const onJump = (id) => {
        dialog.close();
        jumpTo(id);
      };
      renderUsage(dialog, usage.value, () => dialog.close(), weight.status === 'fulfilled' ? { weight: weight.value, onJump } : null);
    });
  }
  $('show-usage').addEventListener('click', openUsage);

  $('compare-mark').addEventListener('click', markForCompare);
  $('compare-open').addEventListener('click', openCompare);

  return { markForCompare, openCompare, openUsage };
}
