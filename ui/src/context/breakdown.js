// Pure mapping of a context's breakdown (`ctx.breakdown`: tokens by category, summing to
// `messageTokens`) to the context panel's stacked bar and its filter. No DOM.

import { formatCount } from '../entries/format.js';

const CATEGORY_LABELS = {
  systemPrompt: 'system prompt',
  toolDefinitions: 'tool definitions',
  user: 'user',
  assistantText: 'assistant text',
  thinking: 'thinking',
  toolCall: 'tool calls',
  toolResult: 'tool results',
  bashExecution: 'shell commands',
  compactionSummary: 'compaction summary',
  branchSummary: 'branch summaries',
  custom: 'extension messages',
  image: 'images',
  other: 'other',
};

/**
 * A row's label: `tool results · read`, `system prompt · preamble`, `thinking`.
 * @param {import('../generated/reports').BreakdownRow} row
 */
export function breakdownLabel(row) {
  const name = CATEGORY_LABELS[row.category] ?? row.category;
  const detail = row.tool ?? row.section;
  return detail ? `${name} · ${detail}` : name;
}

/**
 * The bar's parts, in the rows' order: `{ index, category, label, tokens, share }`, `share` the
 * row's part of `total` in percent (0 when the context is empty).
 * @param {import('../generated/reports').BreakdownRow[]} rows
 * @param {number} total
 */
export function breakdownParts(rows, total) {
  return rows.map((row, index) => ({
    index,
    category: row.category,
    label: breakdownLabel(row),
    tokens: row.tokens,
    messages: row.messages,
    share: total > 0 ? (row.tokens * 100) / total : 0,
  }));
}

/** A part's amount: `31,533 tokens (33.6%), 46 messages`. */
export function partAmount(part) {
  const n = part.messages;
  return `${formatCount(part.tokens)} tokens (${part.share.toFixed(1)}%), ${formatCount(n)} ${n === 1 ? 'message' : 'messages'}`;
}

/** A part's tooltip: `tool results · read: 31,533 tokens (33.6%), 46 messages`. */
export function partTitle(part) {
  return `${part.label}: ${partAmount(part)}`;
}

/**
 * Whether message `msg` has a part in row `index` (the filter a click on the bar sets).
 * @param {{ breakdownRows?: number[] }} msg
 * @param {number} index
 */
export function inRow(msg, index) {
  return (msg.breakdownRows ?? []).includes(index);
}
