// The branch map kept in step with the tree beside it: it shows the same rows, with the tree's
// scrolled window as a band, and moves the tree when clicked or dragged. Redrawn at most once a
// frame while the tree scrolls, so a fast scroll never queues up draws.

import { ROW_HEIGHT } from '../tree/view.js';
import { createMap } from './view.js';
import { $ } from '../dom.js';

/**
 * Builds the map in `#map` beside `#tree` (create it after the tree view: the map's scroll
 * listener comes after the tree's own). `select(k)` selects shown row `k`. Returns
 * `{ drawMap() }`, which redraws it from `store`'s `allRows` and `rows`.
 */
export function createMapPanel(store, { select }) {
  // The branch map beside the tree: the same shown rows, the tree's window as a band.
  const map = createMap($('map'), {
    onJump: (k) => select(k),
    onScroll: (k) => {
      $('tree').scrollTop = Math.max(0, k * ROW_HEIGHT - $('tree').clientHeight / 2);
    },
  });
  function drawMap() {
    const { allRows, rows } = store.get();
    if (!allRows) return;
    const first = Math.floor($('tree').scrollTop / ROW_HEIGHT);
    map.draw(allRows, rows, first, first + Math.ceil($('tree').clientHeight / ROW_HEIGHT));
  }
  let mapFrame = 0;
  $('tree').addEventListener('scroll', () => {
    if (!mapFrame) mapFrame = requestAnimationFrame(() => {
      mapFrame = 0;
      drawMap();
    });
  });
  return { drawMap };
}
