// The branch graph beside the tree, in step with it: the Graph button widens the tree pane and
// shows the graph in place of the narrow branch map; a click selects the entry in the tree, a
// double-click makes it the leaf (the tree and context follow through the same actions the
// tree uses), and the tree's selection is marked in the graph. `body[data-graph]` is `open`
// while it is shown (the end-to-end test waits on it).

import { rowId } from '../tree/table.js';
import { perfMark } from '../tree/perf.js';
import { $, makeButton } from '../dom.js';
import { createGraphView } from './view.js';
import { hoverText } from './text.js';

/**
 * Builds the graph in `#graph-pane`. `jumpTo(id)` selects an entry in the tree
 * (tree/selection.js), `showLeaf(leafId, selectId)` makes a leaf (leaf.js), `fetchPreviews(ids)`
 * loads rows' first lines into the store's `previews`, `exportPng(bytes)` saves a picture.
 * Returns `{ drawGraph, selectionChanged, previewsChanged }` for the renderers.
 */
export function createGraphPanel(store, {
  jumpTo, showLeaf, fetchPreviews, exportPng, report,
}) {
  const doc = document;
  const pane = $('graph-pane');
  const canvas = $('graph');
  const tip = $('graph-tip');
  let firstDraw = true;
  const text = (row) => {
    const t = store.get().allRows;
    return t && row < t.n ? store.get().previews.get(rowId(t, row)) ?? '' : '';
  };
  const view = createGraphView(canvas, tip, {
    onSelect: (row) => jumpTo(rowId(store.get().allRows, row)),
    onActivate: (row) => {
      const id = rowId(store.get().allRows, row);
      showLeaf(id, id);
    },
    text,
    onRows: (rows) => {
      const t = store.get().allRows;
      if (t) fetchPreviews(rows.map((r) => rowId(t, r)));
    },
    hoverText: (row) => {
      const t = store.get().allRows;
      if (!text(row)) fetchPreviews([rowId(t, row)]);
      return hoverText(t, view.state(), row, text(row));
    },
    onDraw: (ms) => {
      canvas.dataset.drawMs = ms.toFixed(2);
      if (firstDraw) {
        firstDraw = false;
        perfMark('graph-drawn');
      }
    },
  });

  const tools = $('graph-tools');
  const button = (text, title, onClick, id) => makeButton(doc, 'plan-button graph-button', text, { title, onClick, id });
  tools.append(
    button('−', 'Zoom out (−)', () => view.zoomOut(), 'graph-zoom-out'),
    button('+', 'Zoom in (+)', () => view.zoomIn(), 'graph-zoom-in'),
    button('Fit', 'The whole graph (0)', () => view.fit(), 'graph-fit'),
    button('Expand', 'Show the selected turn\'s entries, or fold them again (Space)', () => view.toggleSelected(), 'graph-expand'),
    button('PNG…', 'Save the graph as it is on screen as a PNG picture', () => savePng(), 'graph-export'),
  );

  async function savePng() {
    view.drawNow();
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
    if (!blob) return;
    try {
      await exportPng(new Uint8Array(await blob.arrayBuffer()));
    } catch (err) {
      report(err);
    }
  }

  const isOpen = () => doc.body.dataset.graph === 'open';

  /** Shows or hides the graph (the Graph button). */
  function setOpen(open) {
    if (open) doc.body.dataset.graph = 'open';
    else delete doc.body.dataset.graph;
    pane.hidden = !open;
    $('map').hidden = open;
    $('graph-toggle').textContent = open ? 'Hide graph' : 'Graph';
    if (open) {
      firstDraw = true;
      drawGraph();
      canvas.focus();
    }
  }
  $('graph-toggle').addEventListener('click', () => setOpen(!isOpen()));

  /** The table row selected in the tree, or -1. */
  function selectedRow() {
    const { rows, selected } = store.get();
    return selected >= 0 && selected < rows.length ? rows.row(selected) : -1;
  }

  /** Draws the graph of the table in the store (a new tree or leaf). */
  function drawGraph() {
    const { allRows } = store.get();
    if (!isOpen() || !allRows) return;
    view.setTable(allRows, selectedRow());
  }

  return {
    drawGraph,
    selectionChanged: () => {
      if (isOpen()) view.setSelected(selectedRow());
    },
    previewsChanged: () => {
      if (isOpen()) view.refresh();
    },
  };
}
