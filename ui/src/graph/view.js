// The branch graph's canvas: zoom (wheel, + / −, fit), pan (drag), a minimap while zoomed in,
// hover, click, double-click and the arrow keys. Owns `canvas` and the tooltip beside it;
// the layout is layout.js's, the painting draw.js's. Redraws at most once a frame and only
// what is on screen.

import {
  graphPaint, graphShape, graphSlots, nodeAtSlot, slotOfRow, walk,
} from './layout.js';
import {
  LANE, SLOT, drawGraph, drawMinimap, graphPalette, laneX, lanePx, slotY,
} from './draw.js';

const MIN_SCALE = 0.0002;
const MAX_SCALE = 4;
/** The minimap's size in pixels, at most. */
const MINI_W = 60;
const MINI_H = 160;

/**
 * Builds the graph on `canvas`, with `tip` (an element) for hover text. Handlers:
 * `onSelect(row)` a click (a table row), `onActivate(row)` a double-click or Enter (make it
 * the leaf), `hoverText(row)` what hovering row `row` shows, `text(row)` the line known for a
 * row (its preview, `''` until loaded), `onRows(rows)` the first rows of the turns drawn, to
 * load their text, `onDraw(ms)` after each frame (its drawing time).
 */
export function createGraphView(canvas, tip, handlers) {
  const doc = canvas.ownerDocument;
  const win = doc.defaultView;
  /** @type {any} */
  let g = null;
  let shapeOf = null;
  let paintOf = null;
  let view = { scale: 1, tx: 8, ty: 8 };
  let fitted = false;
  let frame = 0;
  let colors = null;
  let mini = null;
  let miniFor = null;
  let drag = null;

  const size = () => ({
    width: Math.max(1, canvas.clientWidth || canvas.width),
    height: Math.max(1, canvas.clientHeight || canvas.height),
  });
  const totalSlots = () => (g ? g.top[g.top.length - 1] : 0);
  const lanes = () => (g ? g.shape.lanes : 1);
  /** The view with its lane width (CSS pixels). */
  const screenView = () => ({ ...view, lanePx: lanePx(view.scale) });
  const worldH = () => Math.max(1, totalSlots() * SLOT);

  function schedule() {
    if (!frame) frame = win.requestAnimationFrame(render);
  }

  /** The view showing the whole graph (never larger than zoom 1). */
  function fitView() {
    const { width, height } = size();
    const scale = Math.max(MIN_SCALE, Math.min(1, (height - 16) / worldH(), (width - 220) / (lanes() * LANE)));
    return { scale, tx: 8, ty: 8 };
  }

  /**
   * Keeps some of the graph on screen: the lanes start at the left edge unless they are wider
   * than the canvas, and the first or last slot stays above or below the middle.
   */
  function clamp(next) {
    const { width, height } = size();
    const wide = lanes() * lanePx(next.scale) + 200;
    const tx = Math.min(8, Math.max(Math.min(8, width - wide), next.tx));
    const ty = Math.min(Math.max(8, height / 2), Math.max(height / 2 - worldH() * next.scale, next.ty));
    return { scale: next.scale, tx, ty };
  }

  function zoomAt(factor, cx, cy) {
    const scale = Math.max(MIN_SCALE, Math.min(MAX_SCALE, view.scale * factor));
    // The lane and slot under the pointer stay under it.
    const lane = (cx - view.tx) / lanePx(view.scale);
    const k = scale / view.scale;
    view = clamp({ scale, tx: cx - lane * lanePx(scale), ty: cy - (cy - view.ty) * k });
    fitted = false;
    schedule();
  }

  /** Whether the graph is taller than the canvas: then the minimap shows where the view is. */
  const zoomedIn = () => worldH() * view.scale > size().height + 1;

  function miniRect() {
    const { width } = size();
    const h = Math.min(MINI_H, Math.max(40, totalSlots()));
    const w = Math.min(MINI_W, lanes() * 6 + 6);
    return { x: width - w - 8, y: 8, w, h };
  }

  function render() {
    frame = 0;
    if (!g) return;
    const started = win.performance.now();
    const { width, height } = size();
    const dpr = win.devicePixelRatio || 1;
    if (canvas.width !== Math.round(width * dpr)) canvas.width = Math.round(width * dpr);
    if (canvas.height !== Math.round(height * dpr)) canvas.height = Math.round(height * dpr);
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    // Read every frame (a few CSS variables): a theme switched in Settings shows at once.
    colors = graphPalette(doc);
    ctx.save();
    ctx.scale(dpr, dpr);
    const scaled = { scale: view.scale, tx: view.tx, ty: view.ty };
    // drawGraph resets the transform: draw in device pixels by scaling the view instead.
    const range = drawGraph(ctx, g, {
      scale: scaled.scale * dpr, tx: scaled.tx * dpr, ty: scaled.ty * dpr, lanePx: lanePx(scaled.scale) * dpr,
    },
      width * dpr, height * dpr, colors, (v, k) => handlers.text(g.shape.start[v] + k));
    ctx.restore();
    if (zoomedIn()) drawMini(ctx, dpr);
    const firsts = [];
    for (let v = range.first; v <= range.last && firsts.length < 400; v++) firsts.push(g.shape.start[v]);
    if (view.scale >= 0.6 && firsts.length) handlers.onRows(firsts);
    canvas.dataset.nodes = String(g.shape.count);
    canvas.dataset.lanes = String(g.shape.lanes);
    canvas.dataset.drawn = String(Math.max(0, range.last - range.first + 1));
    canvas.dataset.scale = view.scale.toFixed(3);
    handlers.onDraw?.(win.performance.now() - started);
  }

  function drawMini(ctx, dpr) {
    const r = miniRect();
    if (!mini) mini = doc.createElement('canvas');
    if (miniFor !== g || mini.height !== r.h) {
      mini.width = r.w;
      mini.height = r.h;
      drawMinimap(mini, g, colors);
      miniFor = g;
    }
    ctx.save();
    ctx.scale(dpr, dpr);
    ctx.globalAlpha = 0.92;
    ctx.drawImage(mini, r.x, r.y);
    ctx.globalAlpha = 1;
    ctx.strokeStyle = colors.line;
    ctx.strokeRect(r.x - 0.5, r.y - 0.5, r.w + 1, r.h + 1);
    // The slots on screen.
    const { height } = size();
    const fy = r.h / worldH();
    const vy = Math.max(0, (-view.ty / view.scale) * fy);
    ctx.strokeStyle = colors.fg;
    ctx.lineWidth = 1.5;
    ctx.strokeRect(r.x - 1, r.y + vy, r.w + 2, Math.max(3, Math.min(r.h - vy, (height / view.scale) * fy)));
    ctx.restore();
  }

  /** The table row at canvas point (`x`, `y`) in CSS pixels, or -1. */
  function rowAtPoint(x, y) {
    if (!g) return -1;
    const wy = (y - view.ty) / view.scale;
    const slot = Math.floor(wy / SLOT);
    const v = nodeAtSlot(g.top, slot);
    if (v < 0) return -1;
    // Within the node's lane, give or take half a lane (small nodes are hard to hit).
    const lane = g.shape.lane[v];
    if (Math.abs(x - laneX(screenView(), lane)) > Math.max(lanePx(view.scale) * 0.75, 6)) return -1;
    return g.shape.start[v] + (slot - g.top[v]);
  }

  /** Centres the view on world height `wy` (and lane `lane`, when given). */
  function centre(wy, lane = null) {
    const { width, height } = size();
    const tx = lane == null ? view.tx : width / 2 - (lane + 0.5) * lanePx(view.scale);
    view = clamp({ ...view, tx, ty: height / 2 - wy * view.scale });
    fitted = false;
    schedule();
  }

  /** Scrolls row `row` into view if it is off screen. */
  function reveal(row) {
    if (!g || row < 0 || row >= g.t.n) return;
    const slot = slotOfRow(g.shape, g.top, row);
    const v = g.shape.nodeOfRow[row];
    const x = laneX(screenView(), g.shape.lane[v]);
    const y = slotY(slot) * view.scale + view.ty;
    const { width, height } = size();
    if (x < 0 || x > width || y < 0 || y > height) centre(slotY(slot), g.shape.lane[v]);
  }

  // ---- Events.
  const local = (event) => {
    const rect = canvas.getBoundingClientRect();
    return { x: event.clientX - rect.left, y: event.clientY - rect.top };
  };
  const inMini = ({ x, y }) => {
    if (!g || !zoomedIn()) return false;
    const r = miniRect();
    return x >= r.x && x <= r.x + r.w && y >= r.y && y <= r.y + r.h;
  };
  const fromMini = ({ y }) => {
    const r = miniRect();
    centre(((y - r.y) / r.h) * worldH());
  };
  canvas.addEventListener('wheel', (event) => {
    event.preventDefault();
    const p = local(event);
    if (event.shiftKey) {
      view = clamp({ ...view, tx: view.tx - event.deltaX, ty: view.ty - event.deltaY });
      schedule();
      return;
    }
    zoomAt(Math.exp(-event.deltaY * 0.0015), p.x, p.y);
  }, { passive: false });
  canvas.addEventListener('mousedown', (event) => {
    if (event.button !== 0) return;
    const p = local(event);
    canvas.focus();
    if (inMini(p)) {
      drag = { mini: true, moved: true };
      fromMini(p);
      return;
    }
    drag = { x: event.clientX, y: event.clientY, tx: view.tx, ty: view.ty, moved: false };
  });
  win.addEventListener('mousemove', (event) => {
    if (drag) {
      if (drag.mini) {
        fromMini(local(event));
        return;
      }
      const dx = event.clientX - drag.x;
      const dy = event.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) {
        view = clamp({ ...view, tx: drag.tx + dx, ty: drag.ty + dy });
        fitted = false;
        schedule();
      }
      return;
    }
    if (event.target !== canvas) return;
    hover(local(event));
  });
  win.addEventListener('mouseup', (event) => {
    if (!drag) return;
    const clicked = !drag.moved;
    drag = null;
    if (clicked && event.target === canvas) {
      const p = local(event);
      const row = rowAtPoint(p.x, p.y);
      if (row >= 0) handlers.onSelect(row);
    }
  });
  canvas.addEventListener('mouseleave', () => {
    tip.hidden = true;
  });
  canvas.addEventListener('dblclick', (event) => {
    const p = local(event);
    const row = rowAtPoint(p.x, p.y);
    if (row >= 0) handlers.onActivate(row);
  });

  function hover(p) {
    const row = inMini(p) ? -1 : rowAtPoint(p.x, p.y);
    canvas.style.cursor = row >= 0 ? 'pointer' : 'grab';
    if (row < 0) {
      tip.hidden = true;
      return;
    }
    const lines = handlers.hoverText(row);
    tip.textContent = lines;
    tip.hidden = false;
    const rect = canvas.getBoundingClientRect();
    tip.style.left = `${Math.min(rect.width - 260, Math.max(0, p.x + 14))}px`;
    tip.style.top = `${Math.max(0, p.y + canvas.offsetTop + 14)}px`;
  }

  /** The graph's own keys; `false`: not one of them. */
  function key(event) {
    if (!g) return false;
    const row = g.selectedRow;
    const v = row >= 0 && row < g.t.n ? g.shape.nodeOfRow[row] : 0;
    const dirs = { ArrowUp: 'up', ArrowDown: 'down', ArrowLeft: 'left', ArrowRight: 'right' };
    const { width, height } = size();
    switch (event.key) {
      case '+':
      case '=':
        zoomAt(1.25, width / 2, height / 2);
        return true;
      case '-':
      case '_':
        zoomAt(0.8, width / 2, height / 2);
        return true;
      case '0':
      case 'f':
        fit();
        return true;
      case ' ':
        toggle(v);
        return true;
      case 'Enter':
        if (row >= 0) handlers.onActivate(g.shape.end[v] - 1 >= row && g.expanded.has(v) ? row : g.shape.end[v] - 1);
        return true;
      default:
        break;
    }
    const dir = dirs[event.key];
    if (!dir) return false;
    if (g.expanded.has(v) && (dir === 'up' || dir === 'down')) {
      // Inside an expanded turn: row by row.
      const next = row + (dir === 'up' ? -1 : 1);
      if (next >= g.shape.start[v] && next < g.shape.end[v]) {
        handlers.onSelect(next);
        return true;
      }
    }
    const to = walk(g.shape, v, dir);
    if (to !== v) handlers.onSelect(dir === 'up' && g.expanded.has(to) ? g.shape.end[to] - 1 : g.shape.start[to]);
    return true;
  }
  canvas.addEventListener('keydown', (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (key(event)) event.preventDefault();
  });

  function fit() {
    view = fitView();
    fitted = true;
    schedule();
  }

  /** Expands or collapses node `v`. */
  function toggle(v) {
    if (!g || v < 0 || v >= g.shape.count) return;
    const expanded = new Set(g.expanded);
    if (expanded.has(v)) expanded.delete(v);
    else expanded.add(v);
    g = { ...g, expanded, top: graphSlots(g.shape, expanded) };
    miniFor = null;
    schedule();
  }

  new win.ResizeObserver(() => {
    if (fitted) view = fitView();
    schedule();
  }).observe(canvas);

  return {
    /**
     * Shows table `t` (tree/table.js's columns), `selectedRow` selected. The turns and lanes are
     * worked out again only when the tree changed (another leaf of the same tree has the same
     * ids and parents), the colours when the leaf did. The view stays where the user put it;
     * a first table, or one arriving while the whole graph is fitted, is fitted.
     */
    setTable(t, selectedRow = -1) {
      if (!t) return;
      const sameTree = shapeOf && shapeOf.n === t.n && (shapeOf.parent === t.parent
        || (shapeOf.ids === t.ids && shapeOf.parent.every((p, i) => p === t.parent[i])));
      const first = !shapeOf;
      if (!sameTree) shapeOf = { parent: t.parent, ids: t.ids, n: t.n, shape: graphShape(t) };
      if (!sameTree || !paintOf || paintOf.t !== t) paintOf = { t, paint: graphPaint(t, shapeOf.shape) };
      const expanded = sameTree && g ? g.expanded : new Set();
      g = {
        t, shape: shapeOf.shape, paint: paintOf.paint, top: graphSlots(shapeOf.shape, expanded), expanded, selectedRow,
      };
      miniFor = null;
      if (first || fitted) fit();
      else view = clamp(view);
      schedule();
    },
    /** Marks table row `row` selected and brings it into view. */
    setSelected(row) {
      if (!g) return;
      g = { ...g, selectedRow: row };
      reveal(row);
      schedule();
    },
    /** Redraws (previews arrived, the theme changed). */
    refresh() {
      miniFor = null;
      schedule();
    },
    /** Draws now (the bench's first draw, an export). */
    drawNow: render,
    zoomIn: () => zoomAt(1.25, size().width / 2, size().height / 2),
    zoomOut: () => zoomAt(0.8, size().width / 2, size().height / 2),
    fit,
    /** Expands or collapses the selected turn. */
    toggleSelected: () => g && g.selectedRow >= 0 && toggle(g.shape.nodeOfRow[g.selectedRow]),
    /** The shape of the graph now (tests, the bench). */
    state: () => g,
  };
}
