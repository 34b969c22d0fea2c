// The side-by-side dialog of two leaves' contexts (the read layer's `CompareReport`). Owns the
// DOM of `#compare-dialog`; session text goes in as text only.

import { cellParts, compareNotes, compareRows, compareSummary, gapText } from './format.js';
import { dialogHead, elementMaker } from '../dom.js';
import { roleLabel } from '../context/format.js';
import { formatCount } from '../entries/format.js';

/**
 * Shows `report` (a `compareView` result: leaf A beside leaf B) in `dialog`.
 * @param {HTMLDialogElement} dialog
 * @param {import('../generated/reports').CompareReport} report
 * @param {() => void} onClose
 */
export function renderCompare(dialog, report, onClose) {
  const doc = dialog.ownerDocument;
  const el = elementMaker(doc);
  const head = dialogHead(doc, 'Two leaves side by side', onClose);
  const summary = el('p', 'compare-summary', compareSummary(report));
  summary.id = 'compare-summary';
  const notes = el('p', 'compare-notes', compareNotes(report).join(' · '));
  const table = el('div', 'compare-rows');
  table.id = 'compare-rows';
  const cell = (c, side) => {
    const parts = cellParts(c);
    const node = el('div', `compare-cell compare-${side}${parts ? '' : ' compare-empty'}${parts && !parts.sent ? ' compare-unsent' : ''}`);
    if (!parts) return node;
    node.dataset.entryId = parts.entryId;
    if (parts.sent) node.append(el('span', 'diff-role', roleLabel(parts.role)));
    node.append(el('span', 'diff-id', parts.entryId));
    if (parts.note) node.append(el('span', 'compare-state', parts.note));
    if (parts.sent) node.append(el('span', 'diff-tokens', formatCount(parts.tokens)), el('span', 'diff-preview', parts.preview));
    node.title = parts.text.slice(0, 2000);
    return node;
  };
  for (const row of compareRows(report)) {
    const line = el('div', `compare-row compare-${row.op}`);
    line.dataset.op = row.op;
    if (row.op === 'gap') {
      line.append(el('div', 'compare-gap', gapText(/** @type {{ count: number, tokens: number }} */ (row))));
    } else {
      const { a, b } = /** @type {import('../generated/reports').CompareRow} */ (row);
      line.append(cell(a, 'left'), cell(b, 'right'));
    }
    table.append(line);
  }
  const columns = el('div', 'compare-columns');
  columns.append(
    el('div', 'compare-col-head', `A · leaf ${report.a.leafId ?? ''}`),
    el('div', 'compare-col-head', `B · leaf ${report.b.leafId ?? ''}`),
  );
  dialog.replaceChildren(head, summary, notes, columns, table);
  if (!dialog.open) dialog.showModal();
}
