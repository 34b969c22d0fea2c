// Painting the branch graph on a 2D canvas: the edges and nodes of the part on screen (found
// through layout.js's slots and edge buckets, so the cost follows the screen, not the
// session), the turns' text beside them when there is room, and the minimap. No state of its
// own and no events: view.js owns the canvas and asks for a frame.

import { MARK, NO_NODE, edgesAcross, nodeAtSlot } from './layout.js';

/** World units of one lane and one slot at zoom 1. */
export const LANE = 14;
export const SLOT = 20;
/** A lane is never narrower than this on screen (CSS pixels): a long, thin session zoomed out
 * to fit its height still shows its branches apart. */
export const MIN_LANE_PX = 9;
/** Below this zoom the text beside the nodes is left out. */
const TEXT_ZOOM = 0.6;

/** Colours per state name and of the marks, from the page's CSS variables (both themes). */
export function graphPalette(doc) {
  const css = doc.defaultView.getComputedStyle(doc.documentElement);
  const v = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
  const summary = v('--summary', '#7a3db8');
  const compaction = v('--compaction', '#7a3db8');
  const pruned = v('--pruned', '#d18a00');
  const meta = v('--meta', '#8d93a3');
  return {
    states: {
      kept: v('--kept', '#2f7d62'), summarized: summary, compaction, 'branch-summary': compaction,
      'old-compaction': summary, pruned, hidden: v('--error', '#c0392b'), replaced: pruned,
      excluded: meta, metadata: meta, 'off-path': meta,
    },
    bg: v('--bg', '#f7f8fa'),
    fg: v('--fg', '#1d2330'),
    line: v('--line', '#dde1e8'),
    muted: meta,
    leaf: v('--leaf', '#c0392b'),
    pruned,
  };
}

/** A lane's width on screen at zoom `scale` (in the pixels `minPx` is in). */
export const lanePx = (scale, minPx = MIN_LANE_PX) => Math.max(LANE * scale, minPx);
/** The screen x of lane `lane`'s centre at `view`. */
export const laneX = (view, lane) => view.tx + (lane + 0.5) * view.lanePx;
/** The world y of slot `slot`'s centre. */
export const slotY = (slot) => slot * SLOT + SLOT / 2;

/**
 * The slots and nodes on a canvas `height` pixels high at `view` (`{ scale, tx, ty, lanePx }`:
 * screen y = world y × scale + ty, x = tx + lanes × lanePx): `{ first, last }` nodes (first >
 * last: none).
 */
export function visibleNodes(top, view, height) {
  const total = top[top.length - 1];
  if (total === 0) return { first: 0, last: -1 };
  const s0 = Math.max(0, Math.floor((-view.ty / view.scale) / SLOT) - 1);
  const s1 = Math.min(total - 1, Math.ceil(((height - view.ty) / view.scale) / SLOT) + 1);
  if (s1 < 0 || s0 > total - 1) return { first: 0, last: -1 };
  return { first: nodeAtSlot(top, s0), last: nodeAtSlot(top, s1) };
}

/** A mark's outline: turn a circle, compaction a diamond, branch summary a square. */
function markPath(ctx, mark, x, y, r) {
  ctx.beginPath();
  if (mark === MARK.compaction) {
    ctx.moveTo(x, y - r * 1.4);
    ctx.lineTo(x + r * 1.4, y);
    ctx.lineTo(x, y + r * 1.4);
    ctx.lineTo(x - r * 1.4, y);
    ctx.closePath();
  } else if (mark === MARK.branchSummary) {
    ctx.rect(x - r, y - r, 2 * r, 2 * r);
  } else {
    ctx.arc(x, y, mark === MARK.other ? r * 0.7 : r, 0, Math.PI * 2);
  }
}

/**
 * Draws graph `g` (`{ t, shape, paint, top, expanded, selectedRow }`) on `ctx` (a canvas
 * `width` × `height` pixels) at `view`; `text(v)` is the line shown beside node `v` (its first
 * request, when loaded). Returns the nodes drawn, `{ first, last }`.
 */
export function drawGraph(ctx, g, view, width, height, colors, text) {
  const { t, shape, paint, top, expanded } = g;
  const { scale, ty } = view;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = colors.bg;
  ctx.fillRect(0, 0, width, height);
  const range = visibleNodes(top, view, height);
  if (range.last < range.first) return range;
  const sx = (v) => laneX(view, shape.lane[v]);
  const sy = (wy) => wy * scale + ty;
  const lastY = (v) => slotY(top[v + 1] - 1);

  // Edges: off the path thin, on it thick; a branch leaves its parent's lane just below it.
  // Zoomed out, a lane's chain is thousands of short segments: consecutive ones are joined
  // into one line per run (`runs`: per path and lane, the run being drawn).
  let rightmost = 0;
  const paths = [new Path2D(), new Path2D()];
  const runs = [new Map(), new Map()];
  const flush = (k, lane, run) => {
    paths[k].moveTo(run.x, run.y0);
    paths[k].lineTo(run.x, run.y1);
    runs[k].delete(lane);
  };
  edgesAcross(shape, range.first, range.last, (c) => {
    const p = shape.parent[c];
    const x0 = sx(p);
    const y0 = sy(lastY(p));
    const x1 = sx(c);
    const y1 = sy(slotY(top[c]));
    const k = paint.onPath[c] ? 1 : 0;
    const path = paths[k];
    if (x0 === x1) {
      const lane = shape.lane[c];
      const run = runs[k].get(lane);
      if (run && Math.abs(run.y1 - y0) < 0.5) {
        run.y1 = y1;
      } else {
        if (run) flush(k, lane, run);
        runs[k].set(lane, { x: x0, y0, y1 });
      }
    } else {
      path.moveTo(x0, y0);
      const bend = Math.min(y1, y0 + SLOT * scale);
      path.bezierCurveTo(x0, (y0 + bend) / 2, x1, (y0 + bend) / 2, x1, bend);
      path.lineTo(x1, y1);
    }
    rightmost = Math.max(rightmost, shape.lane[c], shape.lane[p]);
  });
  runs.forEach((open, k) => open.forEach((run, lane) => flush(k, lane, run)));
  ctx.lineWidth = Math.max(1, Math.min(1.5, scale));
  ctx.strokeStyle = colors.line;
  ctx.stroke(paths[0]);
  ctx.lineWidth = Math.max(1.5, Math.min(3, 2.5 * scale));
  ctx.strokeStyle = colors.fg;
  ctx.stroke(paths[1]);

  // Nodes (and the rows of an expanded turn).
  const r = Math.max(1.5, Math.min(7, 5 * scale, view.lanePx * 0.36));
  const selectedNode = g.selectedRow >= 0 && g.selectedRow < t.n ? shape.nodeOfRow[g.selectedRow] : NO_NODE;
  if (r <= 2.5) {
    drawDots(ctx, g, range, sx, sy, r, colors, selectedNode);
    return range;
  }
  for (let v = range.first; v <= range.last; v++) {
    rightmost = Math.max(rightmost, shape.lane[v]);
    const x = sx(v);
    const y = sy(slotY(top[v]));
    const color = colors.states[t.states[paint.state[v]]] ?? colors.muted;
    ctx.globalAlpha = paint.onPath[v] ? 1 : 0.45;
    if (expanded.has(v)) {
      // A bracket down the turn, a dot per row in the row's own state.
      const y1 = sy(lastY(v));
      ctx.strokeStyle = color;
      ctx.lineWidth = 1;
      ctx.strokeRect(x - r - 2, y - r - 2, 2 * r + 4, y1 - y + 2 * r + 4);
      for (let i = shape.start[v]; i < shape.end[v]; i++) {
        const yi = sy(slotY(top[v] + i - shape.start[v]));
        ctx.fillStyle = colors.states[t.states[t.state[i]]] ?? colors.muted;
        ctx.globalAlpha = t.flags[i] & 4 ? 1 : 0.45;
        markPath(ctx, i === shape.start[v] ? shape.mark[v] : MARK.other, x, yi, r);
        ctx.fill();
        if (i === g.selectedRow) {
          ctx.strokeStyle = colors.fg;
          ctx.lineWidth = 2;
          ctx.stroke();
        }
      }
    } else {
      markPath(ctx, shape.mark[v], x, y, r);
      ctx.fillStyle = color;
      ctx.fill();
      if (paint.pruned[v] && r > 2) {
        // Some of the turn's entries were pruned: a notch of the pruned colour.
        ctx.fillStyle = colors.pruned;
        ctx.fillRect(x + r * 0.2, y + r * 0.2, r * 0.9, r * 0.9);
      }
      if (v === selectedNode) {
        ctx.globalAlpha = 1;
        ctx.strokeStyle = colors.fg;
        ctx.lineWidth = 2;
        markPath(ctx, shape.mark[v], x, y, r + 2.5);
        ctx.stroke();
      }
    }
    ctx.globalAlpha = 1;
    const leaf = v === paint.leafNode;
    if (shape.tip[v] || leaf) {
      // A leaf: a ring; the selected leaf (wherever it is in its turn) a thick one in the
      // leaf colour.
      const yl = leaf && expanded.has(v) ? sy(slotY(top[v] + paint.leafRow - shape.start[v])) : sy(lastY(v));
      ctx.strokeStyle = leaf ? colors.leaf : colors.muted;
      ctx.lineWidth = leaf ? 2.5 : 1;
      ctx.beginPath();
      ctx.arc(x, yl, r + (leaf ? 4 : 2.5), 0, Math.PI * 2);
      ctx.stroke();
    }
  }

  if (scale >= TEXT_ZOOM) drawText(ctx, g, range, laneX(view, rightmost) + view.lanePx / 2 + 6, sy, colors, text);
  return range;
}

/**
 * Zoomed far out: a square per node, one fill per colour, and one node per lane and pixel
 * row (tens of thousands of turns become the few thousand pixels they cover); then the leaf
 * and the selection ringed.
 */
function drawDots(ctx, g, range, sx, sy, r, colors, selectedNode) {
  const { t, shape, paint, top } = g;
  const batches = new Map();
  const lastRow = new Float64Array(shape.lanes).fill(-1);
  for (let v = range.first; v <= range.last; v++) {
    const lane = shape.lane[v];
    const y = sy(slotY(top[v]));
    const py = Math.round(y);
    if (lastRow[lane] === py && v !== paint.leafNode && v !== selectedNode) continue;
    lastRow[lane] = py;
    const key = `${paint.onPath[v] ? 1 : 0}${t.states[paint.state[v]]}`;
    let path = batches.get(key);
    if (!path) batches.set(key, (path = new Path2D()));
    path.rect(sx(v) - r, y - r, 2 * r, 2 * r);
  }
  for (const [key, path] of batches) {
    ctx.globalAlpha = key[0] === '1' ? 1 : 0.45;
    ctx.fillStyle = colors.states[key.slice(1)] ?? colors.muted;
    ctx.fill(path);
  }
  ctx.globalAlpha = 1;
  for (const [v, color, width] of [[paint.leafNode, colors.leaf, 2], [selectedNode, colors.fg, 1.5]]) {
    if (v === NO_NODE || v < range.first || v > range.last) continue;
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    ctx.beginPath();
    ctx.arc(sx(v), sy(slotY(top[v])), r + 3, 0, Math.PI * 2);
    ctx.stroke();
  }
}

/** The turns' first requests, labels and tokens in one column right of the lanes in view. */
function drawText(ctx, g, range, x, sy, colors, text) {
  const { t, shape, top, expanded } = g;
  ctx.font = '12px sans-serif';
  ctx.textBaseline = 'middle';
  for (let v = range.first; v <= range.last; v++) {
    const rows = expanded.has(v) ? shape.end[v] - shape.start[v] : 1;
    for (let k = 0; k < rows; k++) {
      const row = shape.start[v] + k;
      const y = sy(slotY(top[v] + k));
      let at = x;
      const label = k === 0 ? shape.labels.get(v) : t.labels.get(row);
      if (label) {
        // A label: a tag in the compaction colour, its text as text.
        const w = ctx.measureText(label).width + 8;
        ctx.fillStyle = colors.states.compaction;
        ctx.globalAlpha = 0.18;
        ctx.fillRect(at, y - 8, w, 16);
        ctx.globalAlpha = 1;
        ctx.fillText(label, at + 4, y);
        at += w + 6;
      }
      ctx.fillStyle = g.paint.onPath[v] ? colors.fg : colors.muted;
      const line = text(v, k);
      if (line) ctx.fillText(line, at, y, Math.max(40, 900 - (at - x)));
    }
  }
}

/**
 * Paints the whole graph into `mini` (a small canvas, `w` × `h`): one rectangle per node in
 * its state's colour, the path brighter. Cached by view.js until the leaf or the tree changes.
 */
export function drawMinimap(mini, g, colors) {
  const ctx = mini.getContext('2d');
  if (!ctx) return;
  const { shape, paint, top, t } = g;
  const w = mini.width;
  const h = mini.height;
  ctx.fillStyle = colors.bg;
  ctx.fillRect(0, 0, w, h);
  const total = Math.max(1, top[top.length - 1]);
  const lanes = shape.lanes;
  const cw = Math.max(1, w / lanes);
  const ch = Math.max(1, h / total);
  for (let v = 0; v < shape.count; v++) {
    ctx.globalAlpha = paint.onPath[v] ? 1 : 0.35;
    ctx.fillStyle = colors.states[t.states[paint.state[v]]] ?? colors.muted;
    ctx.fillRect(Math.floor((shape.lane[v] * w) / lanes), Math.floor((top[v] * h) / total), Math.ceil(cw), Math.ceil(ch));
  }
  ctx.globalAlpha = 1;
}
