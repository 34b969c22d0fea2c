// What the write flows (flows.js) see of the app: they know nothing of the store, so these hooks
// read what is on screen from it and show a written or re-read file through the same leaf and
// session actions as the rest of the app.

import { contextShown } from '../state.js';
import { planRowClasses } from '../plan/format.js';

/**
 * The `hooks` of `createWrites` (flows.js) over `store`. `loadLeaf(leafId, selectId)` shows a
 * leaf (leaf.js); `openAndShow(path, dialect)` opens a file again (session.js); `openPlan()` /
 * `closePlan()` the compaction preview (plan/actions.js); `oneAtATime(task)` runs a write's
 * refresh in turn with the live reloads (requests.js's `serial`); `report(err)` shows an error.
 */
export function writeHooks(store, { loadLeaf, openAndShow, openPlan, closePlan, oneAtATime, report }) {
  return {
    current: () => {
      const s = store.get();
      return { session: s.session, leafId: s.leafId, followFile: s.followFile, row: s.rows.at(s.selected) ?? null, plan: s.plan };
    },
    markRows: (map) => store.set({ planRows: map ?? planRowClasses(store.get().plan) }),
    written: (session, { leafId, selectId }) => oneAtATime(async () => {
      if (store.get().plan) closePlan();
      store.set({ session, previews: new Map() });
      return (await loadLeaf(leafId, selectId)).ctx;
    }),
    reload: async () => {
      const { session } = store.get();
      // Keep a dialect forced in the settings; a detected one is detected again.
      if (session) await openAndShow(session.file, session.requested ?? null);
    },
    openPlan: () => openPlan(),
    contextShown: (leafId) => contextShown(store.get(), leafId),
    report: (err) => report(err),
  };
}
