// The context panel: owns its DOM. Session text is set with textContent only.

import { estimateText, messageTokensText, roleLabel, totalsText, wrapperText } from './format.js';
import { elementMaker } from '../dom.js';

/** Renders `ctx` (a `contextView` result) into `root`; `onEntry(id)` when an entry id is clicked. */
export function renderContext(root, ctx, onEntry) {
  const doc = root.ownerDocument;
  const el = elementMaker(doc);
  const head = el('div', 'context-totals');
  head.append(
    el('div', 'totals', totalsText(ctx)),
    el('div', 'estimate', estimateText(ctx)),
  );
  const wrapper = el('div', `wrapper wrapper-${ctx.prompts.source}`, wrapperText(ctx.prompts));
  wrapper.title = ctx.prompts.detail;
  head.append(wrapper);

  const list = el('ol', 'messages');
  list.id = 'context-messages';
  for (const msg of ctx.messages) {
    const item = el('li', `message role-${msg.role}${msg.llmRole == null ? ' not-sent' : ''}`);
    item.dataset.entryId = msg.entryId;
    const details = el('details');
    const summary = el('summary');
    const link = el('button', 'entry-link', msg.entryId);
    link.type = 'button';
    link.title = 'show this entry';
    link.addEventListener('click', (event) => {
      event.preventDefault();
      onEntry(msg.entryId);
    });
    summary.append(
      el('span', 'msg-index', String(msg.i + 1)),
      el('span', 'msg-role', roleLabel(msg.role)),
      link,
      el('span', 'msg-tokens', messageTokensText(msg)),
    );
    const firstLine = msg.text.split('\n').find((line) => line.trim() !== '') ?? '';
    summary.append(el('span', 'msg-preview', firstLine));
    const body = el('pre', 'msg-text', msg.truncated ? `${msg.text}\n… (cut)` : msg.text);
    details.append(summary, body);
    item.append(details);
    list.append(item);
  }
  root.replaceChildren(head, list);
}
