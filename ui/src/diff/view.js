// The before/after context diff of a write: a headline and the messages removed, added and
// unchanged (long unchanged runs folded). Owns its DOM; session text goes in as text only.

import { diffRows, diffSummary } from './context-diff.js';
import { elementMaker } from '../dom.js';
import { roleLabel } from '../context/format.js';
import { formatCount } from '../entries/format.js';

const SIGNS = { removed: '−', added: '+', same: ' ' };

/** Renders `diff` (a `diffContexts` result) into `root`. */
export function renderDiff(root, diff) {
  const el = elementMaker(root.ownerDocument);
  const head = el('p', 'diff-summary', diffSummary(diff));
  head.id = 'write-diff-summary';
  const list = el('ol', 'diff-list');
  list.id = 'write-diff';
  for (const row of diffRows(diff)) {
    if (row.op === 'gap') {
      list.append(el('li', 'diff-row diff-gap', `… ${formatCount(row.count)} unchanged ${row.count === 1 ? 'message' : 'messages'}`));
      continue;
    }
    const { msg } = row;
    const item = el('li', `diff-row diff-${row.op}`);
    item.dataset.entryId = msg.entryId ?? '';
    item.dataset.op = row.op;
    const details = el('details');
    const summary = el('summary');
    const firstLine = String(msg.text ?? '').split('\n').find((line) => line.trim() !== '') ?? '';
    summary.append(
      el('span', 'diff-sign', SIGNS[row.op]),
      el('span', 'diff-role', roleLabel(msg.role)),
      el('span', 'diff-id', msg.entryId ?? ''),
      el('span', 'diff-tokens', formatCount(msg.llmTokens ?? msg.tokens ?? 0)),
      el('span', 'diff-preview', firstLine),
    );
    details.append(summary, el('pre', 'diff-text', msg.text ?? ''));
    item.append(details);
    list.append(item);
  }
  root.replaceChildren(head, list);
}
