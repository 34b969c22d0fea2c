// Pure diff of two contexts (two `contextView` results): which LLM-visible messages a write
// removed, added or left alone. No DOM.
//
// Messages are compared by a key of entry id, role and a hash of the text, so a message that
// kept its entry but changed its text (a pruned tool output, a new summary) shows as removed +
// added, and two messages of one entry (a compaction summary and its kept messages) stay apart.

import { formatCount } from '../entries/format.js';

/** 32-bit FNV-1a over UTF-16 code units, as 8 hex digits: cheap, stable, good enough to tell texts apart. */
export function textHash(text) {
  let h = 0x811c9dc5;
  const s = String(text ?? '');
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** The key two messages must share to count as the same message. */
export function messageKey(msg) {
  return `${msg.entryId ?? ''}\u0000${msg.role ?? ''}\u0000${textHash(msg.text)}`;
}

// Above this many cells the middle part is not aligned (memory and time stay bounded; a context
// has hundreds of messages, so this is for pathological inputs only).
const MAX_CELLS = 4_000_000;

/**
 * Longest common subsequence of `a` and `b` (arrays of keys): the matched index pairs, in order.
 * Common prefix and suffix are matched first, so the table covers only the changed middle.
 */
export function lcsPairs(a, b) {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const pairs = [];
  for (let i = 0; i < start; i++) pairs.push([i, i]);
  const n = endA - start;
  const m = endB - start;
  if (n > 0 && m > 0 && (n + 1) * (m + 1) <= MAX_CELLS) {
    // table[i][j]: LCS length of a[start+i..endA) and b[start+j..endB), row-major.
    const w = m + 1;
    const table = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        table[i * w + j] = a[start + i] === b[start + j]
          ? table[(i + 1) * w + j + 1] + 1
          : Math.max(table[(i + 1) * w + j], table[i * w + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (a[start + i] === b[start + j]) {
        pairs.push([start + i, start + j]);
        i++;
        j++;
      } else if (table[(i + 1) * w + j] >= table[i * w + j + 1]) i++;
      else j++;
    }
  }
  for (let k = 0; endA + k < a.length; k++) pairs.push([endA + k, endB + k]);
  return pairs;
}

/** The agent's estimate of a context report, `null` while unknown after a compaction. */
function estimateOf(ctx) {
  const est = ctx?.estimateProjectedContextTokens;
  return !est || est.unknownAfterCompaction ? null : est.tokens;
}

const tokensOf = (msg) => Number(msg?.llmTokens ?? msg?.tokens ?? 0);

/**
 * `{ ops, counts, tokens }`: `ops` in reading order, each `{ op: 'same'|'removed'|'added',
 * before?, after? }` (removed ones before the added ones at each change); `counts` per op and the
 * tokens of each op's messages (`removedTokens`, `addedTokens`); `tokens`: the contexts' totals
 * `{ before, after, delta }` (LLM tokens, the dialect's estimate) and the agent's estimates.
 */
export function diffContexts(before, after) {
  const a = before?.messages ?? [];
  const b = after?.messages ?? [];
  const pairs = lcsPairs(a.map(messageKey), b.map(messageKey));
  const ops = [];
  let i = 0;
  let j = 0;
  const flush = (toI, toJ) => {
    for (; i < toI; i++) ops.push({ op: 'removed', before: a[i] });
    for (; j < toJ; j++) ops.push({ op: 'added', after: b[j] });
  };
  for (const [pi, pj] of pairs) {
    flush(pi, pj);
    ops.push({ op: 'same', before: a[pi], after: b[pj] });
    i = pi + 1;
    j = pj + 1;
  }
  flush(a.length, b.length);
  const counts = { same: 0, removed: 0, added: 0, removedTokens: 0, addedTokens: 0 };
  for (const o of ops) {
    counts[o.op]++;
    if (o.op === 'removed') counts.removedTokens += tokensOf(o.before);
    if (o.op === 'added') counts.addedTokens += tokensOf(o.after);
  }
  const total = (ctx, list) => Number(ctx?.llmTokens ?? list.reduce((s, m) => s + tokensOf(m), 0));
  const tb = total(before, a);
  const ta = total(after, b);
  return {
    ops,
    counts,
    tokens: {
      before: tb,
      after: ta,
      delta: ta - tb,
      estimateBefore: estimateOf(before),
      estimateAfter: estimateOf(after),
    },
  };
}

/** The diff's headline: `"3 removed · 1 added · 12 unchanged · tokens 41,000 → 9,500 (−31,500)"`. */
export function diffSummary(diff) {
  const { counts, tokens } = diff;
  const sign = tokens.delta > 0 ? '+' : tokens.delta < 0 ? '−' : '±';
  return `${counts.removed} removed · ${counts.added} added · ${counts.same} unchanged`
    + ` · tokens ${formatCount(tokens.before)} → ${formatCount(tokens.after)} (${sign}${formatCount(Math.abs(tokens.delta))})`;
}

/**
 * Rows for the diff view with runs of unchanged messages folded: `[{ op, msg }]` and
 * `{ op: 'gap', count }` for a run of more than `2 * context` unchanged messages, keeping
 * `context` of them next to each change (and at the ends).
 */
export function diffRows(diff, context = 2) {
  const rows = [];
  const { ops } = diff;
  let k = 0;
  while (k < ops.length) {
    if (ops[k].op !== 'same') {
      const o = ops[k];
      rows.push({ op: o.op, msg: o.op === 'removed' ? o.before : o.after });
      k++;
      continue;
    }
    let end = k;
    while (end < ops.length && ops[end].op === 'same') end++;
    const run = ops.slice(k, end);
    const head = k === 0 ? 0 : context;
    const tail = end === ops.length ? 0 : context;
    if (run.length > head + tail + 1) {
      for (const o of run.slice(0, head)) rows.push({ op: 'same', msg: o.after });
      rows.push({ op: 'gap', count: run.length - head - tail });
      for (const o of run.slice(run.length - tail)) rows.push({ op: 'same', msg: o.after });
    } else {
      for (const o of run) rows.push({ op: 'same', msg: o.after });
    }
    k = end;
  }
  return rows;
}
