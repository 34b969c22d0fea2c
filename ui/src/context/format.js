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
