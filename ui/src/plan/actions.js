// Opening and closing the compaction preview (the PLAN panel in place of the entry pane). A
// preview is asked for again when another leaf is shown while it is open; closing it, or a newer
// request, drops an answer still on its way, so a late plan never reappears after Esc.

import { compactionPreview } from '../ipc.js';
import { latestRequest } from '../requests.js';
import { leafAsked } from '../state.js';
import { planRowClasses } from './format.js';
import { $ } from '../dom.js';

/**
 * Wires the panel's buttons (`#plan-open`, `#plan-close`) and returns `{ openPlan, closePlan }`
 * over `store`'s `plan`, `planRows` and `planStatus`; `report(err)` shows an error.
 */
export function createPlanActions(store, { report }) {
  // "Latest request wins" (requests.js): an answer overtaken by a newer request is dropped.
  const planRequests = latestRequest();

  /** Shows the compaction preview of the current leaf in the PLAN panel; dashes the rows it changes. */
  async function openPlan() {
    const current = planRequests.begin();
    store.set({ planStatus: 'loading' });
    try {
      const plan = await compactionPreview(leafAsked(store.get()));
      if (!current()) return;
      store.set({ plan, planRows: planRowClasses(plan), planStatus: 'open' });
    } catch (err) {
      if (current()) store.set({ planStatus: null });
      report(err);
    }
  }

  /** Back to the entry pane; the dashed outlines go. */
  function closePlan() {
    planRequests.drop();
    store.set({ plan: null, planRows: new Map(), planStatus: null });
  }

  $('plan-open').addEventListener('click', () => openPlan());
  $('plan-close').addEventListener('click', () => closePlan());

  return { openPlan, closePlan };
}
