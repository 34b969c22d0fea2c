// The app's state in one place, so that every module that reads or sets it agrees on its parts
// and what they mean; and the questions several modules ask of it. Pure (node --test): the
// store (store.js) holds it, the actions set it, the renderers (renderers.js) draw it.

import { NO_ROWS, parentsIn } from './tree/table.js';

/**
 * The state at start, all of it (new Sets and Maps on every call).
 * `session`: the open session; `allRows`: every row of the leaf's tree (tree/table.js's
 * columns); `rows`: the ones shown (filter and search), a `rowList` over them; `selected`: an
 * index into `rows`. `followFile`: the leaf is the file's own, and follows it when an agent
 * appends. `folded`: ids whose subtrees are hidden (← / →); `parents`: ids that have children.
 * `previews`: the rows' first lines fetched so far (a cache, filled as answers arrive).
 * `entry`: the selected entry's detail (null: the hint), `entryRequests` what a selected
 * compaction summarized. `shown`: the context drawn, `{ path, requested, leafId, ctx }`
 * (`requested`: the leaf asked for, `null` for the file's leaf). `plan`: the compaction
 * preview on screen, `planStatus` `loading` / `open` / null, `planRows` the rows it outlines.
 * `budget`: the bar's numbers; `window`: a window typed in the bar; `settings`: the app's.
 * `compareLeaf`: the leaf marked for a comparison; `overlay`: `compare` while the side-by-side
 * or usage dialog is up. `busy`: a leaf is loading; `reloads`: live reloads so far.
 */
export function initialState() {
  return {
    session: null, allRows: null, rows: NO_ROWS, leafId: null, followFile: true, selected: -1,
    folded: new Set(), parents: parentsIn(null), previews: new Map(),
    view: { filter: 'all', showMetadata: false, query: '' }, window: null, settings: null, budget: null,
    entry: null, entryRequests: null, shown: null,
    plan: null, planStatus: null, planRows: new Map(),
    compareLeaf: null, overlay: null, busy: false, reloads: 0,
  };
}

/** The id of the selected row of `state` (null when none is). */
export function selectedId(state) {
  const { rows, selected } = state;
  return rows.id(selected);
}

/** The leaf whose budget and plan are asked for: `null` while the file's leaf is followed. */
export function leafAsked(state) {
  const { followFile, leafId } = state;
  return followFile ? null : leafId;
}

/** The drawn context of `leafId` (`null`: the file's leaf) when it is the one on screen. */
export function contextShown(state, leafId) {
  const { shown, session } = state;
  if (!shown || shown.path !== session?.file) return null;
  return (leafId == null ? shown.requested == null : shown.leafId === leafId) ? shown.ctx : null;
}
