// The context panel: owns its DOM. Session text is set with textContent only.
// `#context[data-counts]` is `loading`, `done` or `error` while / after tokenizer counts run;
// `#context[data-copied]` names the last format copied (the end-to-end test waits on both).

import {
  countMode, countTotalText, editedText, editsText, estimateText, messageCountText, messageTokensText, roleLabel,
  systemHeadText, tokenizerShort, toolText, totalsText, wrapperText,
} from './format.js';
import { breakdownParts, inRow, partAmount, partTitle } from './breakdown.js';
import { elementMaker, makeButton } from '../dom.js';
import { formatCount } from '../entries/format.js';

/**
 * Renders `ctx` (a `contextView` result) into `root`; `onEntry(id)` when an entry id is clicked.
 * `actions` (all optional): `tokenizer` (`o200k_base`, `cl100k_base`, `none`),
 * `counts(leafId, tokenizer)`, `fullText(leafId, i)`, `exportText(leafId, format)` (IPC calls
 * resolving to `tokenCounts` / `messageText` / `exportContext` results), `copy(textPromise)`
 * and `report(err)`.
 *
 * @param {HTMLElement} root
 * @param {import('../generated/reports').ContextReport} ctx
 * @param {(id: string) => void} onEntry
 * @param {any} [actions]
 */
export function renderContext(root, ctx, onEntry, actions = {}) {
  const doc = root.ownerDocument;
  const parts = {
    el: elementMaker(doc),
    button: (className, text, title, onClick) => makeButton(doc, className, text, { title, onClick }),
    fail: (err) => (actions.report ?? console.error)(err),
    onEntry,
  };
  delete root.dataset.counts;
  delete root.dataset.copied;
  delete root.dataset.filter;
  // Which report is drawn (the end-to-end test waits on both).
  root.dataset.leafId = ctx.leafId ?? '';
  root.dataset.ruleSet = ctx.ruleSet.name;

  const { head, countLine } = contextHead(parts, ctx);
  const systemBlock = ctx.system ? systemSection(parts, ctx.system) : null;
  const { list, countCells } = messageList(parts, ctx, actions);
  const { tools, autoCount } = contextTools(parts, root, ctx, actions, { list, countLine, countCells });
  if (ctx.breakdown?.length) head.append(breakdownBar(parts, root, ctx, list));
  head.append(tools);
  root.replaceChildren(...[head, systemBlock, list].filter(Boolean));
  autoCount?.();
}

/** The panel's head: totals, the agent's estimate, the wrappers' wording, edits, the notes. */
function contextHead({ el, button, onEntry }, ctx) {
  const head = el('div', 'context-totals');
  head.append(
    el('div', 'totals', totalsText(ctx)),
    el('div', 'estimate', estimateText(ctx)),
  );
  const countLine = el('div', 'count-total');
  countLine.id = 'context-count';
  countLine.hidden = true;
  head.append(countLine);
  const wrapper = el('div', `wrapper wrapper-${ctx.prompts.source}`, wrapperText(ctx.prompts));
  wrapper.title = ctx.prompts.detail;
  head.append(wrapper);

  if (ctx.contextEdits?.length) {
    const edits = el('div', 'context-edits', editsText(ctx.contextEdits));
    edits.id = 'context-edits';
    head.append(edits);
  }
  if (ctx.notReproducible?.length) {
    const note = el('details', 'not-reproducible');
    note.append(el('summary', null, 'not reproducible from the file'));
    const items = el('ul');
    for (const n of ctx.notReproducible) {
      const item = el('li');
      item.dataset.kind = n.kind;
      if (n.entryId) item.append(button('entry-link', n.entryId, 'show this entry', () => onEntry(n.entryId)), ' ');
      item.append(el('span', 'reason', n.reason));
      items.append(item);
    }
    note.append(items);
    head.append(note);
  }
  return { head, countLine };
}

/**
 * What fills the context: one part per breakdown row, as wide as its tokens; a click shows only
 * the messages with a part in that row (`#context[data-filter]` is its index), a second click
 * or "show all" every message again.
 */
function breakdownBar({ el, button }, root, ctx, list) {
  const box = el('div', 'breakdown');
  box.id = 'context-breakdown';
  const bar = el('div', 'breakdown-bar');
  const caption = el('div', 'breakdown-caption');
  const items = [...list.children];
  const show = (part) => {
    const on = part && root.dataset.filter !== String(part.index);
    if (on) root.dataset.filter = String(part.index);
    else delete root.dataset.filter;
    ctx.messages.forEach((msg, i) => {
      if (items[i]) items[i].hidden = on ? !inRow(msg, part.index) : false;
    });
    for (const seg of bar.children) seg.classList.toggle('selected', on && seg.dataset.index === String(part.index));
    caption.replaceChildren(on
      ? `showing the messages with ${part.label}: ${partAmount(part)}`
      : 'what fills the context: click a part to show only its messages');
    if (on) caption.append(' ', button('tool breakdown-all', 'show all', 'Show every message', () => show(null)));
  };
  for (const part of breakdownParts(ctx.breakdown ?? [], ctx.messageTokens)) {
    const seg = button(`breakdown-part part-${part.category}`, '', partTitle(part), () => show(part));
    seg.dataset.index = String(part.index);
    seg.dataset.category = part.category;
    // Through the CSSOM: the page's policy allows no style attributes.
    seg.style.width = `${part.share}%`;
    bar.append(seg);
  }
  show(null);
  box.append(bar, caption);
  return box;
}

/**
 * pi ≥ 0.86: the system prompt and tools the request leads with, sections folded.
 * @param {any} parts
 * @param {import('../generated/reports').SystemText} system
 */
function systemSection({ el }, system) {
  const block = el('section', 'context-system');
  block.id = 'context-system';
  const top = el('details', 'system-head');
  top.append(el('summary', 'system-title', systemHeadText(system)));
  if (system.content) top.append(el('pre', 'msg-text', system.content));
  for (const sec of system.sections) {
    const d = el('details', 'system-section');
    d.dataset.section = sec.name;
    const sum = el('summary');
    sum.append(el('span', 'section-name', sec.name), el('span', 'msg-tokens', formatCount(sec.tokens)));
    d.append(sum, el('pre', 'msg-text', sec.truncated ? `${sec.text}\n… (cut)` : sec.text));
    top.append(d);
  }
  if (system.tools.length) {
    const tl = el('ul', 'system-tools');
    for (const t of system.tools) tl.append(el('li', 'system-tool', toolText(t)));
    top.append(tl);
  }
  block.append(top);
  return block;
}

/** The messages, folded, each with its entry link, numbers and text ("show all" when cut). */
function messageList({ el, button, fail, onEntry }, ctx, actions) {
  const list = el('ol', 'messages');
  list.id = 'context-messages';
  const countCells = [];
  for (const msg of ctx.messages) {
    const item = el('li', `message role-${msg.role}${msg.llmRole == null ? ' not-sent' : ''}`);
    item.dataset.entryId = msg.entryId;
    const details = el('details');
    const summary = el('summary');
    const link = button('entry-link', msg.entryId, 'show this entry', () => onEntry(msg.entryId));
    const count = el('span', 'msg-count');
    countCells.push(count);
    summary.append(
      el('span', 'msg-index', String(msg.i + 1)),
      el('span', 'msg-role', roleLabel(msg.role)),
      link,
      el('span', 'msg-tokens', messageTokensText(msg)),
      count,
    );
    const firstLine = msg.text.split('\n').find((line) => line.trim() !== '') ?? '';
    if (msg.editedBy) {
      item.classList.add('edited');
      item.dataset.editedBy = msg.editedBy;
      summary.append(el('span', 'msg-edited', editedText(msg)));
    }
    summary.append(el('span', 'msg-preview', firstLine));
    const body = el('pre', 'msg-text', msg.truncated ? `${msg.text}\n… (cut)` : msg.text);
    details.append(summary, body);
    if (msg.truncated && actions.fullText) {
      details.append(button('show-all', 'show all', 'Load the whole text of this message', (b) => {
        b.disabled = true;
        b.textContent = 'loading…';
        actions.fullText(ctx.leafId, msg.i)
          .then(({ text }) => {
            body.textContent = text;
            b.remove();
          })
          .catch((err) => {
            b.disabled = false;
            b.textContent = 'show all';
            fail(err);
          });
      }));
    }
    item.append(details);
    list.append(item);
  }
  return { list, countCells };
}

/**
 * Tools: fold every message, copy or save the context, count its tokens with the tokenizer;
 * `autoCount` starts the count of a small context once the panel is on screen.
 */
function contextTools({ el, button, fail }, root, ctx, actions, { list, countLine, countCells }) {
  const tools = el('div', 'context-tools');
  const setAll = (open) => {
    for (const d of list.querySelectorAll('details')) d.open = open;
  };
  tools.append(
    button('tool', 'expand all', 'Open every message', () => setAll(true)),
    button('tool', 'collapse all', 'Close every message', () => setAll(false)),
  );
  const status = el('span', 'context-status');
  if (actions.exportText && actions.copy) {
    for (const [format, label] of [['json', 'Copy JSON'], ['markdown', 'Copy Markdown'], ['html', 'Copy HTML']]) {
      tools.append(button(`tool copy-${format}`, label, `Copy the whole context as ${label.slice(5)}`, () => {
        status.textContent = 'copying…';
        actions.copy(actions.exportText(ctx.leafId, format))
          .then((text) => {
            status.textContent = `copied ${label.slice(5)} (${formatCount(text.length)} characters)`;
            root.dataset.copied = format;
          })
          .catch((err) => {
            status.textContent = 'copy failed';
            fail(err);
          });
      }));
    }
  }
  if (actions.save) {
    tools.append(button('tool save-export', 'Save…', 'Save the context as JSON or Markdown', () => {
      actions.save(ctx.leafId)
        .then((path) => {
          if (path) status.textContent = `saved ${path}`;
        })
        .catch(fail);
    }));
  }
  const mode = actions.counts ? countMode(ctx, actions.tokenizer) : 'none';
  const runCounts = (b) => {
    if (b) b.remove();
    root.dataset.counts = 'loading';
    countLine.hidden = false;
    countLine.textContent = `counting with ${actions.tokenizer}…`;
    actions.counts(ctx.leafId, actions.tokenizer)
      .then((counts) => {
        if (!root.contains(list)) return; // another context is on screen
        countLine.textContent = countTotalText(counts, ctx);
        counts.messages.forEach((n, i) => {
          if (countCells[i]) countCells[i].textContent = messageCountText(n, counts.tokenizer);
        });
        root.dataset.counts = 'done';
      })
      .catch((err) => {
        countLine.textContent = `could not count: ${err.message}`;
        root.dataset.counts = 'error';
      });
  };
  if (mode === 'ask') {
    tools.append(button('tool count', `count with ${tokenizerShort(actions.tokenizer)}`, 'Count every message with the tokenizer (takes a while on a large context)', runCounts));
  }
  tools.append(status);
  // Small contexts are counted as soon as the panel is on screen.
  return { tools, autoCount: mode === 'auto' ? () => runCounts(null) : null };
}
