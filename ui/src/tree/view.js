// The tree pane: a virtualized list of fixed-height rows. Owns its DOM: a spacer as tall as
// every row, and a small pool of row nodes recycled as the window scrolls. Session text goes
// in with textContent only.

import { entryKind, entryLabel, formatCount, formatTokens } from '../entries/format.js';
import { gutterText, marker, stateClass, stateLabel } from './format.js';
import { scrollToRow, visibleRange } from './window.js';

export const ROW_HEIGHT = 24;

/**
 * Builds the tree in `viewport` (a scrollable element). `handlers`: `onSelect(index)` on click,
 * `onActivate(index)` on double-click, `onRange(ids)` after rows come into view (to fetch their
 * previews), `preview(id)` the preview text known so far, `isFolded(id)` whether the row's
 * subtree is folded away, `rowClass(id)` an extra class (a plan's dashed outline) or nothing.
 */
export function createTreeView(viewport, handlers) {
  const doc = viewport.ownerDocument;
  const spacer = doc.createElement('div');
  spacer.className = 'tree-spacer';
  const layer = doc.createElement('div');
  layer.className = 'tree-rows';
  layer.id = 'tree-rows';
  spacer.append(layer);
  viewport.replaceChildren(spacer);

  // `rows`: anything with `length` and `at(k)`: table.js's `rowList` (only the rows drawn
  // become objects) or a plain array.
  let rows = [];
  const rowOf = (k) => rows.at(k);
  let selected = -1;
  const pool = [];
  let frame = 0;

  function rowNode() {
    const node = doc.createElement('div');
    node.className = 'row';
    for (const part of ['bar', 'gutter', 'marker', 'kind', 'label', 'preview', 'tokens']) {
      const span = doc.createElement('span');
      span.className = part;
      node.append(span);
    }
    return node;
  }

  // Only what differs is written: a node written with the same text is laid out and painted
  // again all the same, and a leaf change or a preview arriving changes a few rows on screen.
  const setText = (el, text) => {
    if (el.textContent !== text) el.textContent = text;
  };
  const setAttr = (el, name, value) => {
    if (el[name] !== value) el[name] = value;
  };

  function fill(node, row, index) {
    const entry = { entryType: row.entryType, role: row.kind };
    const [, gutter, mark, kind, label, preview, tokens] = node.children;
    setAttr(node, 'className', `row ${stateClass(row.state)} kind-${entryKind(entry)}`
      + `${index === selected ? ' selected' : ''}${row.isLeaf ? ' leaf' : ''}`
      + `${row.childless ? ' childless' : ''}${handlers.isFolded?.(row.id) ? ' folded' : ''}`
      + `${handlers.rowClass?.(row.id) ? ` ${handlers.rowClass(row.id)}` : ''}`);
    if (node.dataset.entryId !== row.id) node.dataset.entryId = row.id;
    if (node.dataset.index !== String(index)) node.dataset.index = String(index);
    setAttr(node, 'title', `${row.id} · line ${row.line} · ${stateLabel(row.state)} · depth ${row.indent}`);
    setText(gutter, row.gutter ?? gutterText(row));
    setText(mark, marker(row));
    setText(kind, entryLabel(entry));
    setText(label, row.label ?? '');
    setAttr(label, 'hidden', row.label == null);
    setText(preview, handlers.preview(row.id) ?? '');
    setText(tokens, formatTokens(row.tokens));
    setAttr(tokens, 'title', `${formatCount(row.tokens)} tokens`);
  }

  function render() {
    frame = 0;
    const started = performance.now();
    const range = visibleRange({
      scrollTop: viewport.scrollTop,
      viewportHeight: viewport.clientHeight,
      rowHeight: ROW_HEIGHT,
      rowCount: rows.length,
    });
    const n = range.last - range.first;
    while (pool.length < n) pool.push(rowNode());
    const used = pool.slice(0, n);
    used.forEach((node, k) => fill(node, rowOf(range.first + k), range.first + k));
    if (layer.childElementCount !== n) layer.replaceChildren(...used);
    layer.style.transform = `translateY(${range.padTop}px)`;
    handlers.onRange(used.map((node) => node.dataset.entryId));
    // For scripts/bench-app.sh: the cost of the last redraw, in ms.
    viewport.dataset.renderMs = (performance.now() - started).toFixed(2);
  }

  function schedule() {
    if (!frame) frame = requestAnimationFrame(render);
  }

  viewport.addEventListener('scroll', schedule);
  new ResizeObserver(schedule).observe(viewport);
  const rowAt = (event) => event.target.closest?.('.row');
  viewport.addEventListener('click', (event) => {
    const row = rowAt(event);
    if (row) handlers.onSelect(Number(row.dataset.index));
  });
  viewport.addEventListener('dblclick', (event) => {
    const row = rowAt(event);
    if (row) handlers.onActivate(Number(row.dataset.index));
  });

  return {
    /** Replaces every row (a new leaf or a new session). */
    setRows(next) {
      rows = next;
      viewport.dataset.rowCount = String(rows.length);
      spacer.style.height = `${rows.length * ROW_HEIGHT}px`;
      render();
    },
    /** Marks row `index` selected and scrolls it into view. */
    setSelected(index) {
      selected = index;
      if (index >= 0) {
        const top = scrollToRow({
          index,
          scrollTop: viewport.scrollTop,
          viewportHeight: viewport.clientHeight,
          rowHeight: ROW_HEIGHT,
        });
        if (top != null) viewport.scrollTop = top;
      }
      render();
    },
    /** Redraws the rows on screen (previews arrived). */
    refresh: render,
    /** Rows that fit in the viewport, for PageUp / PageDown. */
    pageRows: () => Math.max(1, Math.floor(viewport.clientHeight / ROW_HEIGHT) - 1),
  };
}
