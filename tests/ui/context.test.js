import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimateText, messageTokensText, roleLabel, totalsText, wrapperText } from '../../ui/src/context/format.js';
import { createStore } from '../../ui/src/store.js';

const ctx = {
  messageCount: 165,
  messageTokens: 41200,
  llmCount: 160,
  llmTokens: 40100,
  estimateProjectedContextTokens: { tokens: 44870, usageTokens: 44000, trailingTokens: 870, unknownAfterCompaction: false },
};

test('totals name the messages and tokens before and after convertToLlm', () => {
  assert.equal(totalsText(ctx), '165 messages · 41,200 tokens · LLM 160 · 40,100 tokens');
  assert.equal(totalsText({ ...ctx, messageCount: 1 }).startsWith('1 message ·'), true);
});

test("the agent's estimate shows usage and trailing part, or says it is unknown", () => {
  assert.equal(estimateText(ctx), "agent's estimate: 44,870 tokens (usage 44,000 + 870)");
  const noUsage = { estimateProjectedContextTokens: { tokens: 120, usageTokens: 0, trailingTokens: 120, unknownAfterCompaction: false } };
  assert.equal(estimateText(noUsage), "agent's estimate: 120 tokens");
  const unknown = { estimateProjectedContextTokens: { ...ctx.estimateProjectedContextTokens, unknownAfterCompaction: true } };
  assert.equal(estimateText(unknown), "agent's estimate: unknown until the next reply");
});

test('the wrapper text says whose wording it is', () => {
  assert.equal(wrapperText({ source: 'agent', name: 'pi 0.73.1' }), "wrapper text: agent's own (pi 0.73.1)");
  assert.equal(wrapperText({ source: 'own', name: "contextree's own wording" }), "wrapper text: contextree's own wording");
  assert.equal(wrapperText({ source: 'custom', name: 'tests' }), 'wrapper text: tests');
});

test('messages show their LLM tokens, or that they are not sent', () => {
  assert.equal(messageTokensText({ llmRole: 'user', llmTokens: 1234 }), '1,234');
  assert.equal(messageTokensText({ llmRole: null, llmTokens: 0 }), 'not sent');
  assert.equal(roleLabel('compactionSummary'), 'compaction summary');
  assert.equal(roleLabel('toolResult'), 'tool result');
  assert.equal(roleLabel('somethingNew'), 'somethingNew');
});

test('the store merges patches and notifies subscribers until they leave', () => {
  const store = createStore({ a: 1, b: 2 });
  const seen = [];
  const leave = store.subscribe((state) => seen.push(state));
  store.set({ b: 3 });
  assert.deepEqual(store.get(), { a: 1, b: 3 });
  leave();
  store.set({ a: 5 });
  assert.deepEqual(seen, [{ a: 1, b: 3 }]);
});

test('tokenizer counts: when to count, the totals line and the per-message cell', async () => {
  const { countMode, countTotalText, messageCountText, tokenizerShort } = await import('../../ui/src/context/format.js');
  assert.equal(tokenizerShort('o200k_base'), 'o200k');
  assert.equal(tokenizerShort('cl100k_base'), 'cl100k');
  assert.equal(countMode(ctx, 'o200k_base'), 'auto');
  assert.equal(countMode({ ...ctx, llmTokens: 2_000_000 }, 'o200k_base'), 'ask');
  assert.equal(countMode(ctx, 'none'), 'none');
  assert.equal(countMode(ctx, null), 'none');
  assert.equal(countTotalText({ tokenizer: 'o200k_base', total: 40012 }, ctx), 'o200k: 40,012 tokens (estimate 40,100, −0.2%)');
  assert.equal(countTotalText({ tokenizer: 'cl100k_base', total: 44110 }, ctx), 'cl100k: 44,110 tokens (estimate 40,100, +10.0%)');
  assert.equal(countTotalText({ tokenizer: 'o200k_base', total: 0 }, { llmTokens: 0 }), 'o200k: 0 tokens (estimate 0, ±0.0%)');
  assert.equal(messageCountText(1180, 'o200k_base'), 'o200k 1,180');
  assert.equal(messageCountText(null, 'o200k_base'), '');
});

test('pi 1.6: the system block, edited messages and the edits line', async () => {
  const { systemHeadText, toolText, editedText, editsText } = await import('../../ui/src/context/format.js');
  const system = { tokens: 1568, content: '', sections: [{ name: 'preamble' }, { name: 'tools' }], tools: [{ name: 'read', schemaChars: 1204, tokens: 301 }], messages: 2 };
  assert.equal(systemHeadText(system), 'system prompt (as the file sets it) · 2 sections · 1 tool · 1,568 tokens · replayed from 2 system messages');
  assert.equal(toolText(system.tools[0]), 'read · schema 1,204 chars · ~301 tokens');
  assert.equal(editedText({ editedBy: 'e1' }), 'content replaced by context_edit e1');
  assert.equal(editedText({ editedBy: null }), '');
  assert.equal(editsText([]), '');
  const edits = [
    { editId: 'e1', targetId: 'a1', action: 'omit', effective: true },
    { editId: 'e2', targetId: 'r1', action: 'replace', effective: true },
    { editId: 'e3', targetId: 'zz', action: 'replace', effective: false },
  ];
  assert.equal(editsText(edits), '3 context edits: 1 hides a message, 1 replaces content, 1 without effect here');
  assert.equal(roleLabel('system'), 'system prompt');
});

test('the context panel and the tree label roles from one table', async () => {
  const { entryLabel } = await import('../../ui/src/entries/format.js');
  for (const role of ['user', 'assistant', 'toolResult', 'bashExecution', 'pythonExecution', 'custom', 'branchSummary', 'compactionSummary']) {
    assert.equal(roleLabel(role), entryLabel({ entryType: 'message', role }), role);
  }
  assert.equal(roleLabel('custom'), 'custom message');
});
