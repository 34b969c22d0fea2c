// The branch map beside the tree: a canvas drawn from `mapCells`, the tree's window as a band,
// a click jumps to the row under it and a drag scrolls the list. Owns `#map`.

import {
  mapCells, patchCells, viewportBand, yToRow,
} from './layout.js';

/** Colors per state name, read from the page's CSS variables (light and dark themes). */
function palette(doc) {
  const css = doc.defaultView.getComputedStyle(doc.documentElement);
  const v = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
  return {
    kept: v('--kept', '#2f7d62'), summarized: v('--summary', '#7a3db8'), compaction: v('--compaction', '#7a3db8'),
    'branch-summary': v('--compaction', '#7a3db8'), 'old-compaction': v('--summary', '#7a3db8'), pruned: v('--pruned', '#d18a00'),
    hidden: v('--error', '#c0392b'), replaced: v('--pruned', '#d18a00'), excluded: v('--meta', '#8d93a3'),
    metadata: v('--meta', '#8d93a3'), 'off-path': v('--line', '#dde1e8'), leaf: v('--leaf', '#c0392b'),
  };
}

/**
 * Builds the map in `canvas`; `onJump(k)` selects shown row `k` (a click), `onScroll(k)` brings
 * it into view (a drag). Returns `{ draw(t, list, first, last) }`.
 */
export function createMap(canvas, { onJump, onScroll }) {
  const doc = canvas.ownerDocument;
  let model = null;
  let current = { n: 0 };
  // What is on the canvas: the band's place and size, to redraw only some pixel rows.
  let drawn = null;
  let dragging = false;
  let moved = false;
  const rowAt = (event) => {
    const rect = canvas.getBoundingClientRect();
    return yToRow(((event.clientY - rect.top) / rect.height) * canvas.height, current.n, canvas.height);
  };
  canvas.addEventListener('mousedown', (event) => {
    dragging = true;
    moved = false;
    event.preventDefault();
  });
  canvas.addEventListener('mousemove', (event) => {
    if (!dragging) return;
    moved = true;
    const k = rowAt(event);
    if (k >= 0) onScroll(k);
  });
  const end = (event) => {
    if (!dragging) return;
    dragging = false;
    const k = rowAt(event);
    if (k >= 0 && !moved) onJump(k);
  };
  canvas.addEventListener('mouseup', end);
  canvas.addEventListener('mouseleave', () => {
    dragging = false;
  });

  function draw(t, list, first, last) {
    const started = doc.defaultView.performance.now();
    const height = Math.max(1, Math.floor(canvas.clientHeight || canvas.height));
    const width = Math.max(1, Math.floor(canvas.clientWidth || canvas.width));
    if (canvas.height !== height) canvas.height = height;
    if (canvas.width !== width) canvas.width = width;
    current = { n: list.length };
    // After a leaf change that left the same rows shown, only the pixel rows of the rows whose
    // state changed are painted again (all of them on any other change).
    let only = null;
    if (model && model.height === height && model.list.index === list.index && t.changed && model.t.serial === t.from) {
      only = patchCells(model, t, list, t.changed);
      model.t = t;
      model.list = list;
    } else if (!model || model.t !== t || model.list !== list || model.height !== height) {
      model = { t, list, height, ...mapCells(t, list, height) };
    }
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    const colors = palette(doc);
    const band = viewportBand(first, last, list.length, model.height);
    const sameCanvas = drawn && drawn.width === width && drawn.height === height && drawn.top === band.top && drawn.size === band.size;
    if (!(only && sameCanvas)) {
      only = null;
      ctx.clearRect(0, 0, width, height);
    }
    const laneW = Math.max(2, Math.min(10, Math.floor(width / model.lanes)));
    const paint = (y) => {
      for (let x = 0; x < model.lanes; x++) {
        const c = model.cells[y * model.lanes + x];
        if (!c) continue;
        const name = t.states[(c & 0x3f) - 1];
        ctx.globalAlpha = c & 0x80 ? 1 : 0.45;
        ctx.fillStyle = c & 0x40 ? colors.leaf : colors[name] ?? colors.metadata;
        ctx.fillRect(x * laneW, y, c & 0x80 ? laneW : laneW - 1, 1);
      }
    };
    if (only) {
      for (const y of only) {
        ctx.clearRect(0, y, width, 1);
        paint(y);
      }
    } else {
      for (let y = 0; y < model.height; y++) paint(y);
    }
    ctx.globalAlpha = 1;
    drawn = {
      width, height, top: band.top, size: band.size,
    };
    ctx.strokeStyle = colors.metadata;
    ctx.strokeRect(0.5, band.top + 0.5, width - 1, band.size - 1);
    canvas.dataset.rows = String(list.length);
    canvas.dataset.lanes = String(model.lanes);
    // Read by scripts/bench-app.sh, as the tree's data-render-ms.
    canvas.dataset.drawMs = (doc.defaultView.performance.now() - started).toFixed(2);
  }
  return { draw };
}
