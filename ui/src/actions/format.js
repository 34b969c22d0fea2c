// Pure texts of the write flows: what each confirmation says will be written, the summary
// source chosen in a form, error and result lines. No DOM.

import { shortPath } from '../paths.js';
import { formatCount } from '../entries/format.js';

// A missing number reads as 0 here.
const count = (n) => formatCount(n ?? 0);
const plural = (n, one, many = `${one}s`) => `${count(n)} ${Number(n) === 1 ? one : many}`;

/** Kinds of summary source a form offers (`candidate`: one configured entry; `agent`: one of
 * the agent's own models). */
export const SOURCE_MODES = ['configured', 'candidate', 'agent', 'custom', 'offline'];
export const PROVIDER_KINDS = ['openai-compatible', 'anthropic', 'remote'];

/** A configured candidate in a few words: `name · kind · model`. */
export function candidateLabel(c) {
  return [c.name ?? c.kind, c.kind, c.model].filter((part, i, all) => part && all.indexOf(part) === i).join(' · ');
}

/** One of the agent's own models: `pi's own: anthropic/claude-sonnet-4-5 (key from ~/.pi/agent/auth.json)`. */
export function agentModelLabel(m) {
  if (m.unavailable) return `${m.name} — cannot be used: ${m.unavailable}`;
  const key = m.key ? `key ${m.key} from ${m.keySource}` : 'no key';
  return `${m.name} (${key})`;
}

/** The agent's own models contextree can call, in the order they are tried. */
export function usableAgentModels(providers) {
  return (providers?.agentModels ?? []).filter((m) => !m.unavailable);
}

/**
 * The choices of the "Summary by" select, `[{ value, label, disabled? }]`, in this order: the
 * default (every configured candidate in order with fallback; else omp's remote endpoint; else
 * the agent's own models), the agent's own models one by one (`agent:<index>`; those
 * contextree cannot call are listed disabled with the reason), each configured candidate
 * alone (`candidate:<index>`), typed in, offline. `providers` is `providers()`'s answer (null
 * when it failed).
 */
export function sourceOptions(providers) {
  const candidates = providers?.candidates ?? [];
  const agentModels = providers?.agentModels ?? [];
  const usable = usableAgentModels(providers);
  const all = candidates.length
    ? (candidates.length > 1 ? 'all configured, in order (fallback)' : `configured: ${candidateLabel(candidates[0])}`)
    : providers?.remoteEndpoint
      ? `omp's remote endpoint ${providers.remoteEndpoint}`
      : usable.length === 1
        ? agentModelLabel(usable[0])
        : usable.length > 1
          ? `the agent's own models, in order (fallback): ${usable.map((m) => m.name).join(', ')}`
          : 'configured: none (the offline summary is used)';
  const options = [{ value: 'configured', label: all }];
  // The agent's own models, first among the single choices; alone they mean something
  // unless one usable model already is the default.
  const agentIsDefault = !candidates.length && !providers?.remoteEndpoint;
  agentModels.forEach((m, i) => {
    if (agentIsDefault && usable.length === 1 && !m.unavailable) return;
    const option = { value: `agent:${i}`, label: m.unavailable ? agentModelLabel(m) : `only ${agentModelLabel(m)}` };
    if (m.unavailable) option.disabled = true;
    options.push(option);
  });
  // One alone means something only when there is more than one.
  if (candidates.length > 1) {
    candidates.forEach((c, i) => {
      const key = c.key ? ` (key ${c.key})` : c.keySource === 'none' ? ' (no key)' : '';
      options.push({ value: `candidate:${i}`, label: `only ${candidateLabel(c)}${key}` });
    });
  }
  options.push({ value: 'custom', label: 'typed in…' }, { value: 'offline', label: 'offline extractive summary (no model)' });
  return options;
}

/** A select's value as the form's `{ mode, candidate }` (`candidate`: index, or null). */
export function parseSourceValue(value) {
  const m = /^(candidate|agent):(\d+)$/.exec(String(value ?? ''));
  if (m) return { mode: m[1], candidate: Number(m[2]) };
  return { mode: SOURCE_MODES.includes(value) && value !== 'candidate' && value !== 'agent' ? value : 'configured', candidate: null };
}

/**
 * The select's value of the form's `{ mode, candidate }` (the inverse of `parseSourceValue`).
 * @param {{ mode?: string, candidate?: number | null }} [source]
 */
export function sourceValue({ mode, candidate } = {}) {
  return mode === 'candidate' || mode === 'agent' ? `${mode}:${candidate}` : (mode ?? 'configured');
}

/**
 * The `SummarySource` of a form's fields, or an error for the form:
 * `{ source }` | `{ error }`. `mode`: `configured` (contextree's config, then omp's endpoint,
 * then offline), `candidate` (only the configured entry at index `candidate` of
 * `providers.candidates`), `custom` (`kind`, `model`, `baseUrl` typed in), `offline`.
 */
export function summarySource({ mode, candidate, kind, model, baseUrl }, providers = null) {
  if (mode === 'offline') return { source: { offline: true, provider: null } };
  if (mode === 'candidate') {
    const candidates = providers?.candidates ?? [];
    const c = Number.isInteger(candidate) ? candidates[candidate] : undefined;
    if (!c) return { error: 'that configured provider is no longer listed; choose again' };
    // By name when the name is unique (it survives a reordered config file), else by place.
    const name = c.name ?? c.kind;
    const unique = candidates.filter((o) => (o.name ?? o.kind) === name).length === 1;
    return { source: { offline: false, provider: null, candidate: unique ? name : candidate } };
  }
  if (mode === 'agent') {
    const m = Number.isInteger(candidate) ? (providers?.agentModels ?? [])[candidate] : undefined;
    if (!m) return { error: "that model of the agent's is no longer listed; choose again" };
    if (m.unavailable) return { error: `${m.name} cannot be used: ${m.unavailable}` };
    return { source: { offline: false, provider: null, candidate: m.name } };
  }
  if (mode !== 'custom') return { source: { offline: false, provider: null } };
  const k = PROVIDER_KINDS.includes(kind) ? kind : null;
  if (!k) return { error: `unknown provider kind \`${kind}\`` };
  const m = String(model ?? '').trim();
  const url = String(baseUrl ?? '').trim();
  if (k === 'remote' && !url) return { error: 'a remote endpoint needs its URL' };
  if (k !== 'remote' && !m) return { error: 'name the model' };
  if (url && !/^https?:\/\/[^\s]+$/.test(url)) return { error: `\`${url}\` is not an http(s) URL` };
  return { source: { offline: false, provider: { kind: k, model: m || null, baseUrl: url || null } } };
}

/** The configured candidate a source names (by name or index), if listed. */
function pickedCandidate(source, providers) {
  const candidates = providers?.candidates ?? [];
  if (typeof source.candidate === 'number') return candidates[source.candidate] ?? null;
  return candidates.find((c) => (c.name ?? c.kind) === source.candidate) ?? null;
}

/** Who will write the summary, in words, for the confirmation. */
export function sourceText(source, providers = null) {
  if (source.offline) return "contextree's offline extractive summary (no model is called)";
  if (source.provider) {
    const p = source.provider;
    if (p.kind === 'remote') return `the remote endpoint ${p.baseUrl}`;
    return `${p.kind} model ${p.model}${p.baseUrl ? ` at ${p.baseUrl}` : ' (default URL)'}`;
  }
  const own = typeof source.candidate === 'string'
    ? (providers?.agentModels ?? []).find((m) => m.name === source.candidate) : null;
  if (own && !pickedCandidate(source, providers)) {
    return `only ${agentModelLabel(own)} (no fallback: if it fails, nothing is written)`;
  }
  if (source.candidate != null) {
    const c = pickedCandidate(source, providers);
    const what = c ? candidateLabel(c) : String(source.candidate);
    return `only the configured provider ${what} (no fallback: if it fails, nothing is written)`;
  }
  const candidates = providers?.candidates ?? [];
  if (candidates.length > 0) {
    const names = candidates.map((c) => `${c.name ?? c.kind}${c.model ? ` (${c.model})` : ''}`).join(', ');
    // A failed model call is an error (nothing is written), never an offline summary instead.
    return `the configured providers in order, the next one when one fails: ${names}`;
  }
  if (providers?.remoteEndpoint) return `omp's remote endpoint ${providers.remoteEndpoint}`;
  const usable = usableAgentModels(providers);
  if (usable.length > 0) {
    return `the agent's own model${usable.length > 1 ? 's in order, the next one when one fails' : ''}: ${usable.map(agentModelLabel).join(', ')}`;
  }
  return "contextree's offline extractive summary (no provider is configured)";
}

function fileText(session) {
  return shortPath(session?.file) ?? session?.fileName ?? 'the open file';
}

const NOT_CHANGED = 'Nothing else in the file changes. If the file changed since it was read, nothing is written.';

/** Confirmation of a compaction: `[line]`. */
export function compactConfirmation({ plan, session, source, providers, instructions }) {
  const lines = [
    `Append one line to ${fileText(session)}: a "compaction" entry under the leaf ${plan.leafId}.`,
    `It summarizes ${plural(plan.messagesToSummarizeIds.length, 'entry', 'entries')}`
      + `${plan.turnPrefixIds?.length ? ` (and ${plural(plan.turnPrefixIds.length, 'entry', 'entries')} of a split turn)` : ''}`
      + ` and keeps the context from entry ${plan.firstKeptEntryId}.`,
    `Tokens: ${count(plan.tokensBefore)} before → about ${count(plan.preview.estimatedTokensAfter)} after`
      + ` (kept ${count(plan.preview.keptTokens)} + summary ≤ ${count(plan.preview.summaryBudget)}).`,
    `Summary by: ${sourceText(source, providers)}.`,
  ];
  if (instructions) lines.push(`Custom instructions: "${instructions}".`);
  lines.push(NOT_CHANGED);
  return lines;
}

/** Predicted name of prune's backup: `<path>.bak-<milliseconds>` beside the file (host/rewrite.rs). */
export function backupPattern(session) {
  return `${fileText(session)}.bak-<time>`;
}

/**
 * Confirmation of pruning: `[line]`.
 * @param {{ preview: import('../generated/reports').PruneReport, session: any }} answers
 */
export function pruneConfirmation({ preview, session }) {
  const lines = [
    `Rewrite ${fileText(session)} in place: the outputs of ${plural(preview.prunedIds.length, 'tool result')}`
      + ` (${preview.prunedIds.join(', ')}) are replaced by a short notice; every other line stays byte for byte.`,
    `Tokens of the leaf's context: ${tokensText(preview)}.`,
    `File size: ${count(preview.bytes.before)} → ${count(preview.bytes.after)} bytes.`,
    `The original is kept as a backup at ${backupPattern(session)}.`,
  ];
  if (preview.notes.length) lines.push(`Note: ${preview.notes.join(' ')}`);
  lines.push('If the file changed since it was read, nothing is written.');
  return lines;
}

/** Confirmation of moving the file's leaf: `[line]`. */
export function navigateConfirmation({ preview, session, source, providers, instructions }) {
  const lines = [];
  if (preview.summarize && !preview.nothingToSummarize) {
    lines.push(
      `Append one line to ${fileText(session)}: a "${preview.entryType}" entry under ${preview.placementParentId}`
        + ` summarizing ${plural(preview.abandonedIds.length, 'abandoned entry', 'abandoned entries')} of the branch left at ${preview.fromLeafId}.`,
      `The file's leaf becomes the new entry: the agent continues from ${preview.targetId} with the summary in its context.`,
      `Summary by: ${sourceText(source, providers)}.`,
    );
    if (instructions) lines.push(`Custom instructions: "${instructions}".`);
  } else {
    lines.push(
      `Append one line to ${fileText(session)}: a "custom" entry (customType contextree-continue) under ${preview.placementParentId ?? preview.targetId}.`,
      `The file's leaf moves there: the agent continues from ${preview.targetId}. The entry is never part of the model's context.`,
    );
    if (preview.summarize) lines.push('Nothing to summarize: the branch left has no entries of its own.');
  }
  for (const w of preview.warnings ?? []) lines.push(`⚠ ${w}`);
  lines.push(NOT_CHANGED);
  return lines;
}

/** Confirmation of undoing a compaction (D14): `[line]`. */
export function undoConfirmation({ preview, session }) {
  const lines = [
    `Append one line to ${fileText(session)}: a "custom" entry (customType ${preview.entry?.customType ?? 'contextree-continue'})`
      + ` under ${preview.targetId}, the entry before the compaction ${preview.compactionId}.`,
    'The agent continues from there: its context is the one before the compaction. Nothing is deleted; the compaction stays on its branch.',
  ];
  if (preview.note) lines.push(`Note: ${preview.note}`);
  lines.push(NOT_CHANGED);
  return lines;
}

/** Confirmation of a corrected summary: `[line]`. */
export function editConfirmation({ preview, session, summary }) {
  const lines = [
    `Append one line to ${fileText(session)}: a new "compaction" entry under ${preview.parentId}`
      + ` with the same boundary as ${preview.compactionId} (first kept entry ${preview.firstKeptEntryId},`
      + ` tokens before ${count(preview.tokensBefore)}) and your summary (${plural(summary.length, 'character')}).`,
    'It is marked as supplied by the user, as a hook\'s summary would be. The old entry stays in the file.',
  ];
  if (preview.note) lines.push(`Note: ${preview.note}`);
  lines.push(NOT_CHANGED);
  return lines;
}

/** A command error in words, by kind (`{ kind, message }`). */
export function errorText(err) {
  const message = err?.message ?? String(err);
  switch (err?.kind) {
    case 'changed':
      return `The file changed since it was read: nothing was written. The view was reloaded; preview again. (${message})`;
    case 'held':
      return `Another program has the file open for writing, so nothing was written: a rewrite now would send its later entries to the backup. Quit the agent (or let it move to another session), then try again. (${message})`;
    case 'busy':
      return `Another write or summary is running; wait for it to finish. (${message})`;
    case 'cancelled':
      return 'Cancelled: nothing was written.';
    case 'provider':
      return `The model call failed: ${message}. Nothing was written.`;
    case 'refused':
      return `Refused: ${message}`;
    default:
      return `Error (${err?.kind ?? 'error'}): ${message}`;
  }
}

/** The summarizer of a `WriteResult` in words. */
export function summarizerText(s) {
  if (!s) return null;
  switch (s.kind) {
    case 'model': {
      const calls = s.calls ?? [s];
      return `summary by ${calls.map((c) => `${c.provider} · ${c.model}${c.call ? ` (${c.call})` : ''}`).join(', ')}`;
    }
    case 'offline':
      return `offline extractive summary${s.why ? ` (${s.why})` : ''}`;
    case 'supplied':
      return 'summary supplied by the user';
    case 'hook':
      return `summary supplied by a hook${s.event ? ` (${s.event})` : ''}`;
    default:
      return `summary: ${s.kind}`;
  }
}

/** What a `WriteResult` says was written: `[line]`. */
export function resultLines(result) {
  const lines = [];
  if (result.rewrite) {
    const r = result.rewrite;
    lines.push(`Rewrote ${shortPath(result.file)}: ${plural(r.prunedIds.length, 'tool output')} pruned (${r.prunedIds.join(', ')}).`);
    lines.push(`Bytes ${count(r.bytesBefore)} → ${count(r.bytesAfter)}; backup at ${shortPath(r.backupPath)}.`);
  }
  for (const e of result.entries ?? []) {
    lines.push(`Appended "${e.type}" entry ${e.id} under ${e.parentId ?? '(root)'}${e.line != null ? ` at line ${e.line}` : ''} of ${shortPath(result.file)}.`);
  }
  if (result.leafId) lines.push(`The file's leaf is now ${result.leafId}.`);
  const s = summarizerText(result.summarizer);
  if (s) lines.push(`${s[0].toUpperCase()}${s.slice(1)}.`);
  for (const w of result.warnings ?? []) lines.push(`⚠ ${w}`);
  return lines;
}

/**
 * `74,306 → 52,124 (saves 22,182)`: the leaf's context before and after pruning.
 * @param {import('../generated/reports').PruneReport} preview
 */
function tokensText(preview) {
  const { before, after } = preview.context;
  return `${count(before.messageTokens)} → ${count(after.messageTokens)} (saves ${count(preview.total.tokensSaved)})`;
}

/**
 * Prune preview lines for the panel: `[line]`.
 * @param {import('../generated/reports').PruneReport} preview
 */
export function prunePreviewLines(preview) {
  if (preview.prunedIds.length === 0) return [`Nothing to prune: ${preview.reason ?? 'no tool output qualifies'}.`];
  const lines = [
    `${plural(preview.prunedIds.length, 'tool output')} would be pruned: ${preview.prunedIds.join(', ')}.`,
    `Tokens ${tokensText(preview)}.`,
  ];
  if (preview.notes.length) lines.push(`Note: ${preview.notes.join(' ')}`);
  return lines;
}

/**
 * Navigate preview lines: `[line]`.
 * @param {import('../generated/reports').NavigateReport} preview
 */
export function navigatePreviewLines(preview) {
  const lines = [`Continue from ${preview.targetId} (the file's leaf is ${preview.fromLeafId ?? 'none'}).`];
  if (preview.summarize) {
    lines.push(preview.nothingToSummarize
      ? 'Nothing to summarize: no entries are abandoned.'
      : `${plural(preview.abandonedIds.length, 'abandoned entry', 'abandoned entries')} summarized into a "${preview.entryType}" entry (budget ${count(preview.tokenBudget)} tokens).`);
  } else {
    lines.push(`${plural(preview.abandonedIds?.length ?? 0, 'entry', 'entries')} left behind, not summarized; a "custom" marker entry is appended.`);
  }
  for (const w of preview.warnings ?? []) lines.push(`⚠ ${w}`);
  return lines;
}
