import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compactConfirmation, editConfirmation, errorText, navigateConfirmation, navigatePreviewLines,
  parseSourceValue, pruneConfirmation, prunePreviewLines, resultLines, sourceOptions, sourceText, sourceValue,
  summarySource, undoConfirmation,
} from '../../ui/src/actions/format.js';

const session = { file: '/s/a.jsonl', fileName: 'a.jsonl' };
const plan = {
  leafId: 'L9', messagesToSummarizeIds: ['a', 'b', 'c'], turnPrefixIds: [], firstKeptEntryId: 'k1',
  tokensBefore: 36949, preview: { estimatedTokensAfter: 21000, keptTokens: 20007, summaryBudget: 993 },
};

test('form fields become a summary source; bad input is an error for the form', () => {
  assert.deepEqual(summarySource({ mode: 'configured' }), { source: { offline: false, provider: null } });
  assert.deepEqual(summarySource({ mode: 'offline' }), { source: { offline: true, provider: null } });
  assert.deepEqual(
    summarySource({ mode: 'custom', kind: 'openai-compatible', model: ' m ', baseUrl: 'http://127.0.0.1:9/v1' }),
    { source: { offline: false, provider: { kind: 'openai-compatible', model: 'm', baseUrl: 'http://127.0.0.1:9/v1' } } },
  );
  assert.deepEqual(summarySource({ mode: 'custom', kind: 'anthropic', model: 'claude', baseUrl: '' }).source.provider,
    { kind: 'anthropic', model: 'claude', baseUrl: null });
  assert.match(summarySource({ mode: 'custom', kind: 'openai-compatible', model: '' }).error, /model/);
  assert.match(summarySource({ mode: 'custom', kind: 'remote', model: '' }).error, /URL/);
  assert.match(summarySource({ mode: 'custom', kind: 'x', model: 'm' }).error, /unknown provider kind/);
  assert.match(summarySource({ mode: 'custom', kind: 'anthropic', model: 'm', baseUrl: 'file:///etc' }).error, /not an http/);
});

test('the source in words: typed provider, configured candidates, omp endpoint, offline', () => {
  const typed = { offline: false, provider: { kind: 'openai-compatible', model: 'm', baseUrl: 'http://h/v1' } };
  assert.equal(sourceText(typed), 'openai-compatible model m at http://h/v1');
  const configured = { offline: false, provider: null };
  assert.equal(sourceText(configured, { candidates: [{ name: 'local', kind: 'openai-compatible', model: 'q' }, { kind: 'anthropic', model: null }] }),
    'the configured providers in order, the next one when one fails: local (q), anthropic');
  assert.equal(sourceText(configured, { candidates: [], remoteEndpoint: 'http://r' }), "omp's remote endpoint http://r");
  assert.match(sourceText(configured, { candidates: [] }), /offline extractive summary \(no provider is configured\)/);
  assert.match(sourceText({ offline: true, provider: null }), /no model is called/);
});

test('the compaction confirmation names the file, the leaf, the counts, the cut and the tokens', () => {
  const lines = compactConfirmation({ plan, session, source: { offline: true, provider: null }, instructions: 'focus on tests' });
  assert.equal(lines[0], 'Append one line to /s/a.jsonl: a "compaction" entry under the leaf L9.');
  assert.equal(lines[1], 'It summarizes 3 entries and keeps the context from entry k1.');
  assert.equal(lines[2], 'Tokens: 36,949 before → about 21,000 after (kept 20,007 + summary ≤ 993).');
  assert.match(lines[3], /^Summary by: contextree's offline/);
  assert.equal(lines[4], 'Custom instructions: "focus on tests".');
  assert.match(lines.at(-1), /nothing is written/);
  const split = compactConfirmation({ plan: { ...plan, turnPrefixIds: ['t'] }, session, source: { offline: true } });
  assert.equal(split[1], 'It summarizes 3 entries (and 1 entry of a split turn) and keeps the context from entry k1.');
});

test('the prune confirmation says it rewrites, what, and where the backup goes', () => {
  // The shape of the read layer's PruneReport (the parts these lines read).
  const preview = {
    prunedIds: ['r0', 'r1'], total: { prunedCount: 2, tokensSaved: 22182 },
    context: { before: { messageTokens: 74306, llmTokens: 74000 }, after: { messageTokens: 52124, llmTokens: 52000 } },
    bytes: { before: 302026, after: 214000 }, notes: ['pi never prunes'], reason: null,
  };
  const lines = pruneConfirmation({ preview, session });
  assert.match(lines[0], /^Rewrite \/s\/a\.jsonl in place: the outputs of 2 tool results \(r0, r1\)/);
  assert.equal(lines[1], "Tokens of the leaf's context: 74,306 → 52,124 (saves 22,182).");
  assert.equal(lines[3], 'The original is kept as a backup at /s/a.jsonl.bak-<time>.');
  assert.equal(lines[4], 'Note: pi never prunes');
  assert.deepEqual(prunePreviewLines(preview).slice(0, 2), ['2 tool outputs would be pruned: r0, r1.', 'Tokens 74,306 → 52,124 (saves 22,182).']);
  assert.deepEqual(prunePreviewLines({ ...preview, prunedIds: [], reason: 'below the minimum saving' }), ['Nothing to prune: below the minimum saving.']);
});

test('navigate: a branch summary or a continue marker', () => {
  const preview = {
    targetId: 't', fromLeafId: 'f', summarize: true, abandonedIds: ['x', 'y'], placementParentId: 't',
    entryType: 'branch_summary', call: { systemPrompt: 's', prompt: 'p', maxTokens: 100 }, tokenBudget: 2000,
    nothingToSummarize: false, warnings: [],
  };
  const lines = navigateConfirmation({ preview, session, source: { offline: true } });
  assert.equal(lines[0], 'Append one line to /s/a.jsonl: a "branch_summary" entry under t summarizing 2 abandoned entries of the branch left at f.');
  assert.match(navigatePreviewLines(preview)[1], /^2 abandoned entries summarized into a "branch_summary" entry \(budget 2,000 tokens\)\.$/);
  const plain = navigateConfirmation({ preview: { ...preview, summarize: false, entryType: 'custom' }, session });
  assert.equal(plain[0], 'Append one line to /s/a.jsonl: a "custom" entry (customType contextree-continue) under t.');
});

test('undo and edit say what they append and that nothing is deleted', () => {
  const undo = undoConfirmation({ preview: { compactionId: 'c1', targetId: 'p1', entry: { type: 'custom', customType: 'contextree-continue' } }, session });
  assert.equal(undo[0], 'Append one line to /s/a.jsonl: a "custom" entry (customType contextree-continue) under p1, the entry before the compaction c1.');
  assert.match(undo[1], /Nothing is deleted/);
  const edit = editConfirmation({ preview: { compactionId: 'c1', parentId: 'L', firstKeptEntryId: 'k', tokensBefore: 5000 }, session, summary: 'abc' });
  assert.equal(edit[0], 'Append one line to /s/a.jsonl: a new "compaction" entry under L with the same boundary as c1 (first kept entry k, tokens before 5,000) and your summary (3 characters).');
  assert.match(edit[1], /supplied by the user/);
});

test('each error kind is said plainly', () => {
  assert.match(errorText({ kind: 'changed', message: 'm' }), /^The file changed since it was read: nothing was written\. The view was reloaded; preview again\./);
  assert.match(errorText({ kind: 'busy', message: 'm' }), /^Another write/);
  assert.match(errorText({ kind: 'held', message: 's.jsonl: omp (pid 42) has the file open' }), /^Another program has the file open for writing, so nothing was written: .* then try again\. \(s\.jsonl: omp \(pid 42\)/);
  assert.equal(errorText({ kind: 'cancelled', message: 'm' }), 'Cancelled: nothing was written.');
  assert.equal(errorText({ kind: 'provider', message: 'HTTP 401' }), 'The model call failed: HTTP 401. Nothing was written.');
  assert.equal(errorText({ kind: 'refused', message: 'Already compacted' }), 'Refused: Already compacted');
  assert.equal(errorText({ kind: 'io', message: 'disk full' }), 'Error (io): disk full');
  assert.equal(errorText(new Error('x')), 'Error (error): x');
});

test('result lines: appended entries, the rewrite and its backup, the summarizer', () => {
  const lines = resultLines({
    action: 'compact', file: '/s/a.jsonl', entries: [{ id: 'n1', parentId: 'L9', type: 'compaction', line: 230 }],
    leafId: 'n1', summarizer: { kind: 'model', calls: [{ call: 'history', provider: 'local', model: 'm' }] }, rewrite: null, warnings: ['w'],
  });
  assert.deepEqual(lines, [
    'Appended "compaction" entry n1 under L9 at line 230 of /s/a.jsonl.',
    "The file's leaf is now n1.",
    'Summary by local · m (history).',
    '⚠ w',
  ]);
  const pruned = resultLines({
    action: 'prune', file: '/s/a.jsonl', entries: [], leafId: 'f6', summarizer: null, warnings: [],
    rewrite: { backupPath: '/s/a.jsonl.bak-1', prunedIds: ['r0'], bytesBefore: 10, bytesAfter: 5 },
  });
  assert.equal(pruned[0], 'Rewrote /s/a.jsonl: 1 tool output pruned (r0).');
  assert.equal(pruned[1], 'Bytes 10 → 5; backup at /s/a.jsonl.bak-1.');
});

// As `providers()` lists them: `name` is the configured name, else the kind.
const two = {
  configPath: '/h/.config/contextree/config.json',
  candidates: [
    { name: 'strong', kind: 'anthropic', model: 'claude-sonnet-4-5', baseUrl: 'https://api.anthropic.com', key: 'sk-…cdef', keySource: 'environment' },
    { name: 'openai-compatible', kind: 'openai-compatible', model: 'qwen2.5:7b', baseUrl: 'http://127.0.0.1:11434/v1', key: null, keySource: 'none' },
    { name: 'openai-compatible', kind: 'openai-compatible', model: 'small', baseUrl: 'http://h/v1', key: null, keySource: 'none' },
  ],
  remoteEndpoint: null,
};

test('the source select: all configured in order, each one alone, typed in, offline', () => {
  assert.deepEqual(sourceOptions(two), [
    { value: 'configured', label: 'all configured, in order (fallback)' },
    { value: 'candidate:0', label: 'only strong · anthropic · claude-sonnet-4-5 (key sk-…cdef)' },
    { value: 'candidate:1', label: 'only openai-compatible · qwen2.5:7b (no key)' },
    { value: 'candidate:2', label: 'only openai-compatible · small (no key)' },
    { value: 'custom', label: 'typed in…' },
    { value: 'offline', label: 'offline extractive summary (no model)' },
  ]);
  // One candidate alone is the same as all of them: no separate entry.
  assert.deepEqual(sourceOptions({ candidates: [two.candidates[0]] }).map((o) => o.value), ['configured', 'custom', 'offline']);
  assert.equal(sourceOptions({ candidates: [two.candidates[0]] })[0].label, 'configured: strong · anthropic · claude-sonnet-4-5');
  assert.equal(sourceOptions({ candidates: [], remoteEndpoint: 'http://r/c' })[0].label, "omp's remote endpoint http://r/c");
  assert.equal(sourceOptions(null)[0].label, 'configured: none (the offline summary is used)');
  for (const v of ['configured', 'candidate:2', 'custom', 'offline']) assert.equal(sourceValue(parseSourceValue(v)), v);
  assert.deepEqual(parseSourceValue('candidate:1'), { mode: 'candidate', candidate: 1 });
  assert.deepEqual(parseSourceValue('candidate:x'), { mode: 'configured', candidate: null });
  assert.deepEqual(parseSourceValue(null), { mode: 'configured', candidate: null });
  assert.equal(sourceValue(undefined), 'configured');
});

test('one configured candidate becomes `candidate`: its name when unique, else its index', () => {
  assert.deepEqual(summarySource({ mode: 'candidate', candidate: 0 }, two),
    { source: { offline: false, provider: null, candidate: 'strong' } });
  // Two unnamed entries of one kind share their name: the index tells them apart.
  assert.deepEqual(summarySource({ mode: 'candidate', candidate: 2 }, two),
    { source: { offline: false, provider: null, candidate: 2 } });
  assert.match(summarySource({ mode: 'candidate', candidate: 3 }, two).error, /no longer listed/);
  assert.match(summarySource({ mode: 'candidate', candidate: 0 }, null).error, /no longer listed/);
  assert.match(summarySource({ mode: 'candidate', candidate: null }, two).error, /no longer listed/);
  assert.equal(sourceText({ offline: false, provider: null, candidate: 'strong' }, two),
    'only the configured provider strong · anthropic · claude-sonnet-4-5 (no fallback: if it fails, nothing is written)');
  assert.equal(sourceText({ offline: false, provider: null, candidate: 2 }, two),
    'only the configured provider openai-compatible · small (no fallback: if it fails, nothing is written)');
  const lines = compactConfirmation({ plan, session, source: { offline: false, provider: null, candidate: 'strong' }, providers: two });
  assert.equal(lines[3], 'Summary by: only the configured provider strong · anthropic · claude-sonnet-4-5 (no fallback: if it fails, nothing is written).');
});

test("the agent's own model is offered first when nothing is configured; unusable ones say why", () => {
  const own = {
    name: "pi's own: anthropic/claude-sonnet-4-5", agent: 'pi', setting: 'defaultProvider/defaultModel',
    provider: 'anthropic', model: 'claude-sonnet-4-5', api: 'anthropic-messages', kind: 'anthropic',
    baseUrl: 'https://api.anthropic.com', key: 'sk-…cdef', keySource: '~/.pi/agent/auth.json', unavailable: null, notes: [],
  };
  const oauth = { ...own, name: "pi's own: openai-codex/gpt-5", key: null, kind: null, unavailable: 'needs pi\'s own subscription login' };
  const providers = { configPath: null, candidates: [], remoteEndpoint: null, agentModels: [own, oauth] };
  const options = sourceOptions(providers);
  assert.equal(options[0].value, 'configured');
  assert.equal(options[0].label, "pi's own: anthropic/claude-sonnet-4-5 (key sk-…cdef from ~/.pi/agent/auth.json)");
  assert.deepEqual(options[1], { value: 'agent:1', label: "pi's own: openai-codex/gpt-5 — cannot be used: needs pi's own subscription login", disabled: true });
  assert.equal(sourceText({ offline: false, provider: null }, providers), "the agent's own model: pi's own: anthropic/claude-sonnet-4-5 (key sk-…cdef from ~/.pi/agent/auth.json)");
  // Picked alone: by its name.
  assert.deepEqual(parseSourceValue('agent:0'), { mode: 'agent', candidate: 0 });
  assert.equal(sourceValue({ mode: 'agent', candidate: 0 }), 'agent:0');
  const picked = summarySource({ mode: 'agent', candidate: 0 }, providers).source;
  assert.equal(picked.candidate, own.name);
  assert.match(sourceText(picked, providers), /^only pi's own: anthropic\/claude-sonnet-4-5/);
  assert.match(summarySource({ mode: 'agent', candidate: 1 }, providers).error, /cannot be used: needs pi's own/);
  // With a configured candidate, the config file stays the default and the agent's model is the first single choice.
  const withConfig = { ...providers, candidates: [{ name: 'local', kind: 'openai-compatible', model: 'q', keySource: 'none' }] };
  const values = sourceOptions(withConfig).map((o) => o.value);
  assert.deepEqual(values, ['configured', 'agent:0', 'agent:1', 'custom', 'offline']);
});
