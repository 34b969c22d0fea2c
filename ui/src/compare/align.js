// Two leaves' contexts side by side (pure, no DOM): the messages aligned one by one — the shared
// prefix, where they diverge, what only one side has — with the tokens on each side.

import { diffContexts } from '../diff/context-diff.js';
import { formatCount } from '../entries/format.js';

const tokensOf = (msg) => Number(msg?.llmTokens ?? msg?.tokens ?? 0);

/**
 * `{ rows, shared, divergeAt, tokens }` for contexts `left` and `right` (`contextView` results).
 * `rows`: `{ op: 'same', left, right }` for a message both send, else `{ op: 'differ', left?,
 * right? }` — a run of left-only messages next to a run of right-only ones is paired row by
 * row, so a changed message sits beside what replaced it. `shared`: messages of the common
 * prefix; `divergeAt`: the first row that is not shared (`null`: the contexts are the same).
 */
export function compareContexts(left, right) {
  const { ops } = diffContexts(left, right);
  const rows = [];
  let k = 0;
  while (k < ops.length) {
    if (ops[k].op === 'same') {
      rows.push({ op: 'same', left: ops[k].before, right: ops[k].after });
      k++;
      continue;
    }
    const lefts = [];
    const rights = [];
    while (k < ops.length && ops[k].op !== 'same') {
      if (ops[k].op === 'removed') lefts.push(ops[k].before);
      else rights.push(ops[k].after);
      k++;
    }
    for (let i = 0; i < Math.max(lefts.length, rights.length); i++) {
      rows.push({ op: 'differ', left: lefts[i] ?? null, right: rights[i] ?? null });
    }
  }
  let shared = 0;
  while (shared < rows.length && rows[shared].op === 'same') shared++;
  const sum = (pick) => rows.reduce((s, r) => s + tokensOf(pick(r)), 0);
  const onlyLeft = sum((r) => (r.op === 'differ' ? r.left : null));
  const onlyRight = sum((r) => (r.op === 'differ' ? r.right : null));
  return {
    rows,
    shared,
    divergeAt: shared < rows.length ? shared : null,
    tokens: {
      left: Number(left?.llmTokens ?? sum((r) => r.left)),
      right: Number(right?.llmTokens ?? sum((r) => r.right)),
      shared: sum((r) => (r.op === 'same' ? r.left : null)),
      onlyLeft,
      onlyRight,
    },
    counts: {
      onlyLeft: rows.filter((r) => r.op === 'differ' && r.left).length,
      onlyRight: rows.filter((r) => r.op === 'differ' && r.right).length,
    },
  };
}

/** The headline: `shared 12 messages (8,000 tokens) · diverge at #13 · only A: 3 (1,200) · only B: 5 (2,400)`. */
export function compareSummary(cmp, leftId, rightId) {
  const n = (count, one, many) => `${formatCount(count)} ${count === 1 ? one : many}`;
  const parts = [
    `A ${leftId ?? '(none)'}: ${formatCount(cmp.tokens.left)} tokens · B ${rightId ?? '(none)'}: ${formatCount(cmp.tokens.right)} tokens`,
    `shared ${n(cmp.shared, 'message', 'messages')} (${formatCount(cmp.tokens.shared)} tokens)`,
    cmp.divergeAt == null ? 'the same context' : `they diverge at message ${cmp.divergeAt + 1}`,
    `only in A: ${n(cmp.counts.onlyLeft, 'message', 'messages')} (${formatCount(cmp.tokens.onlyLeft)} tokens)`,
    `only in B: ${n(cmp.counts.onlyRight, 'message', 'messages')} (${formatCount(cmp.tokens.onlyRight)} tokens)`,
  ];
  return parts.join(' · ');
}

/**
 * The rows to draw, a long shared run folded: `[{ ...row }]` and `{ op: 'gap', count }` for
 * the shared messages beyond `keep` at each edge of a run.
 */
export function compareRows(cmp, keep = 2) {
  const out = [];
  let k = 0;
  const { rows } = cmp;
  while (k < rows.length) {
    if (rows[k].op !== 'same') {
      out.push(rows[k]);
      k++;
      continue;
    }
    let end = k;
    while (end < rows.length && rows[end].op === 'same') end++;
    const head = k === 0 ? 0 : keep;
    const tail = end === rows.length ? 0 : keep;
    if (end - k > head + tail + 1) {
      out.push(...rows.slice(k, k + head), { op: 'gap', count: end - k - head - tail }, ...rows.slice(end - tail, end));
    } else {
      out.push(...rows.slice(k, end));
    }
    k = end;
  }
  return out;
}
