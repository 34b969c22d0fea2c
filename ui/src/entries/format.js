// Pure formatting of session entries (labels, kinds, counts): no DOM, no IPC (node --test).

/**
 * Role labels of messages, keyed by the message `role` in the session file: the tree's rows
 * and the context panel's messages both read this one table.
 */
const ROLE_LABELS = {
  user: 'user',
  assistant: 'assistant',
  toolResult: 'tool result',
  bashExecution: 'bash',
  pythonExecution: 'python',
  custom: 'custom message',
  branchSummary: 'branch summary',
  compactionSummary: 'compaction summary',
  system: 'system prompt',
};

/** Display name of a message role; an unknown role is shown as it is. */
export function roleLabel(role) {
  return ROLE_LABELS[role] ?? String(role);
}

/** Labels of non-message entries, keyed by the entry `type`. */
const TYPE_LABELS = {
  compaction: 'compaction',
  branch_summary: 'branch summary',
  model_change: 'model change',
  thinking_level_change: 'thinking level',
  label: 'label',
  custom: 'custom',
  custom_message: 'custom message',
  session_info: 'session info',
};

/** Visual kinds (CSS classes `kind-*`), the legend of ui-sketch.md in miniature. */
const ROLE_KINDS = {
  user: 'user',
  assistant: 'assistant',
  toolResult: 'tool',
  bashExecution: 'tool',
  custom: 'user',
  branchSummary: 'summary',
  compactionSummary: 'summary',
};
const TYPE_KINDS = {
  compaction: 'summary',
  branch_summary: 'summary',
  custom_message: 'user',
};

/** Human label of an entry: its role for messages, else its type, with `_` read as spaces. */
export function entryLabel({ entryType, role }) {
  if (entryType === 'message' && role) return roleLabel(role);
  return TYPE_LABELS[entryType] ?? String(entryType).replaceAll('_', ' ');
}

/** One of `user`, `assistant`, `tool`, `summary`, `meta`. */
export function entryKind({ entryType, role }) {
  if (entryType === 'message') {
    return ROLE_KINDS[role] ?? 'meta';
  }
  return TYPE_KINDS[entryType] ?? 'meta';
}

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** `1234567` → `"1,234,567"` (rounded to a whole number), independent of the system locale. */
export function formatCount(n) {
  // Math.round's halves (up, as before) and no "-0".
  return COUNT.format(Math.round(Number(n)) + 0);
}

/**
 * Compact token counts: `999`, `1.2k`, `41k`, `1.3M`. (Not through Intl: its rounding of the
 * shortest decimal form would turn 1150's `1.1k` into `1.2k`.)
 */
export function formatTokens(n) {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${trimZero((n / 1000).toFixed(1))}k`;
  if (n < 999_500) return `${Math.round(n / 1000)}k`;
  if (n < 10_000_000) return `${trimZero((n / 1_000_000).toFixed(1))}M`;
  return `${Math.round(n / 1_000_000)}M`;
}

function trimZero(text) {
  return text.endsWith('.0') ? text.slice(0, -2) : text;
}

/** Ids longer than `max` characters are cut, keeping the start: UUIDs differ early. */
export function shortId(id, max = 12) {
  if (id == null) return '';
  return id.length > max ? `${id.slice(0, max - 1)}…` : id;
}

/** Title-bar summary of a session: `"12 entries · 3.4k tokens"`. */
export function sessionSummary({ entryCount, totalTokens }) {
  const n = entryCount;
  return `${formatCount(n)} ${n === 1 ? 'entry' : 'entries'} · ${formatTokens(totalTokens)} tokens`;
}
