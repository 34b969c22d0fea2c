// Pure formatting of the context panel. No DOM.

import { formatCount } from '../entries/format.js';

// The role labels are the tree's (one table: entries/format.js).
export { roleLabel } from '../entries/format.js';

/** `"wrapper text: agent's own (pi 0.73.1)"` or `"wrapper text: contextree's own wording"`. */
export function wrapperText({ source, name }) {
  if (source === 'agent') return `wrapper text: agent's own (${name})`;
  if (source === 'own') return "wrapper text: contextree's own wording";
  return `wrapper text: ${name}`;
}

/** The totals line at the top of the context panel. */
export function totalsText(ctx) {
  const n = ctx.messageCount;
  const parts = [
    `${formatCount(n)} ${n === 1 ? 'message' : 'messages'} · ${formatCount(ctx.messageTokens)} tokens`,
    `LLM ${formatCount(ctx.llmCount)} · ${formatCount(ctx.llmTokens)} tokens`,
  ];
  return parts.join(' · ');
}

/** The agent's own context-size estimate, as its status line would judge it. */
export function estimateText({ estimateProjectedContextTokens: estimate }) {
  if (estimate.unknownAfterCompaction) return "agent's estimate: unknown until the next reply";
  const usage = estimate.usageTokens > 0
    ? ` (usage ${formatCount(estimate.usageTokens)} + ${formatCount(estimate.trailingTokens)})`
    : '';
  return `agent's estimate: ${formatCount(estimate.tokens)} tokens${usage}`;
}

/** Token cell of a message: its LLM estimate, or `not sent`. */
export function messageTokensText(msg) {
  return msg.llmRole == null ? 'not sent' : formatCount(msg.llmTokens);
}

/** `o200k_base` → `o200k`: the tokenizer's short name for buttons and cells. */
export function tokenizerShort(name) {
  return String(name).replace(/_base$/, '');
}

/** Contexts up to this many estimated LLM tokens are counted as soon as the panel shows. */
export const AUTO_COUNT_TOKENS = 300_000;

/**
 * What the panel does about tokenizer counts: `none` (the setting is `none`), `auto` (count
 * now: small context) or `ask` (show the "count with …" button).
 */
export function countMode(ctx, tokenizer) {
  if (!tokenizer || tokenizer === 'none') return 'none';
  return ctx.llmTokens <= AUTO_COUNT_TOKENS ? 'auto' : 'ask';
}

/** The totals line of the counts: `o200k: 40,012 tokens (estimate 40,100, −0.2%)`. */
export function countTotalText(counts, ctx) {
  const est = ctx.llmTokens;
  const diff = est > 0 ? ((counts.total - est) / est) * 100 : 0;
  const sign = diff > 0 ? '+' : diff < 0 ? '−' : '±';
  return `${tokenizerShort(counts.tokenizer)}: ${formatCount(counts.total)} tokens (estimate ${formatCount(est)}, ${sign}${Math.abs(diff).toFixed(1)}%)`;
}

/** The count cell of one message: `o200k 1,180`, empty when it is not sent. */
export function messageCountText(count, tokenizer) {
  return count == null ? '' : `${tokenizerShort(tokenizer)} ${formatCount(count)}`;
}

/** The heading of the system block: `system prompt · 7 sections · 4 tools · 1,568 tokens`. */
export function systemHeadText(system) {
  const n = (count, one, many) => `${formatCount(count)} ${count === 1 ? one : many}`;
  const parts = ['system prompt (as the file sets it)'];
  if (system.sections.length) parts.push(n(system.sections.length, 'section', 'sections'));
  if (system.tools.length) parts.push(n(system.tools.length, 'tool', 'tools'));
  parts.push(`${formatCount(system.tokens)} tokens`);
  if (system.messages > 1) parts.push(`replayed from ${formatCount(system.messages)} system messages`);
  return parts.join(' · ');
}

/** One tool line: `read · schema 1,204 chars · ~301 tokens`. */
export function toolText(tool) {
  return `${tool.name} · schema ${formatCount(tool.schemaChars)} chars · ~${formatCount(tool.tokens)} tokens`;
}

/** What an edit did to a message, for its row: `content replaced by edit e1`. */
export function editedText(msg) {
  return msg.editedBy ? `content replaced by context_edit ${msg.editedBy}` : '';
}

/** The edits of a context in one line: `2 context edits: 1 hides, 1 replaces (1 has no effect)`. */
export function editsText(edits) {
  if (!edits || edits.length === 0) return '';
  const omit = edits.filter((e) => e.action === 'omit' && e.effective).length;
  const replace = edits.filter((e) => e.action === 'replace' && e.effective).length;
  const idle = edits.length - omit - replace;
  const parts = [];
  if (omit) parts.push(`${formatCount(omit)} ${omit === 1 ? 'hides a message' : 'hide messages'}`);
  if (replace) parts.push(`${formatCount(replace)} ${replace === 1 ? 'replaces content' : 'replace content'}`);
  if (idle) parts.push(`${formatCount(idle)} without effect here`);
  return `${formatCount(edits.length)} context ${edits.length === 1 ? 'edit' : 'edits'}: ${parts.join(', ')}`;
}
