// Pure formatting of the context panel. No DOM.

import { formatCount } from '../entries/format.js';

const ROLES = {
  user: 'user',
  assistant: 'assistant',
  toolResult: 'tool result',
  bashExecution: 'bash',
  pythonExecution: 'python',
  custom: 'custom',
  branchSummary: 'branch summary',
  compactionSummary: 'compaction summary',
};

/** Display name of an agent message role. */
export function roleLabel(role) {
  return ROLES[role] ?? String(role);
}

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
export function estimateText({ estimate }) {
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
