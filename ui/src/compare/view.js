// The side-by-side dialog of two leaves' contexts. Owns the DOM of `#compare-dialog`; session
// text goes in as text only.

import { compareRows, compareSummary } from './align.js';
import { dialogHead, elementMaker } from '../dom.js';
import { roleLabel } from '../context/format.js';
import { formatCount } from '../entries/format.js';

/** Shows `cmp` (a `compareContexts` result) of leaves `leftId` (A) and `rightId` (B) in `dialog`. */
export function renderCompare(dialog, cmp, leftId, rightId, onClose) {
  const el = elementMaker(dialog.ownerDocument);
  const head = dialogHead(dialog.ownerDocument, 'Two leaves side by side', onClose);
  const summary = el('p', 'compare-summary', compareSummary(cmp, leftId, rightId));
  summary.id = 'compare-summary';
  const table = el('div', 'compare-rows');
  table.id = 'compare-rows';
  const cell = (msg, side) => {
    const c = el('div', `compare-cell compare-${side}${msg ? '' : ' compare-empty'}`);
    if (!msg) return c;
    c.dataset.entryId = msg.entryId ?? '';
    const firstLine = String(msg.text ?? '').split('\n').find((line) => line.trim() !== '') ?? '';
    c.append(
      el('span', 'diff-role', roleLabel(msg.role)),
      el('span', 'diff-id', msg.entryId ?? ''),
      el('span', 'diff-tokens', formatCount(msg.llmTokens ?? msg.tokens ?? 0)),
      el('span', 'diff-preview', firstLine),
    );
    c.title = String(msg.text ?? '').slice(0, 2000);
    return c;
  };
  for (const row of compareRows(cmp)) {
    const line = el('div', `compare-row compare-${row.op}`);
    line.dataset.op = row.op;
    if (row.op === 'gap') {
      line.append(el('div', 'compare-gap', `… ${formatCount(row.count)} shared ${row.count === 1 ? 'message' : 'messages'}`));
    } else {
      line.append(cell(row.left, 'left'), cell(row.right, 'right'));
    }
    table.append(line);
  }
  const columns = el('div', 'compare-columns');
  columns.append(el('div', 'compare-col-head', `A · leaf ${leftId ?? ''}`), el('div', 'compare-col-head', `B · leaf ${rightId ?? ''}`));
  dialog.replaceChildren(head, summary, columns, table);
  if (!dialog.open) dialog.showModal();
}
