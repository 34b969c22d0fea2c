import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLAN_CLASSES, callTitle, planLines, planRowClasses } from '../../ui/src/plan/format.js';

const plan = {
  dialect: 'pi', leafId: 'leaf1', nothingToCompact: false, reason: null, promptPack: "contextree's own wording",
  firstKeptEntryId: 'k1', isSplitTurn: true, tokensBefore: 36949, keepRecentTokensUsed: 20000,
  preview: { keptTokens: 20007, summaryBudget: 21651, estimatedTokensAfter: 41658 },
  messagesToSummarizeIds: ['a', 'b'], turnPrefixIds: ['c'], recentMessagesIds: ['k1', 'leaf1'], droppedIds: [],
  historyLiteral: null, warnings: ['careful'], calls: [],
};

test('summarized and turn-prefix rows and the cut get dashed classes; kept rows none', () => {
  const map = planRowClasses(plan);
  assert.equal(map.get('a'), PLAN_CLASSES.summarized);
  assert.equal(map.get('b'), PLAN_CLASSES.summarized);
  assert.equal(map.get('c'), PLAN_CLASSES.turnPrefix);
  assert.equal(map.get('k1'), PLAN_CLASSES.firstKept);
  assert.equal(map.get('leaf1'), undefined);
  assert.equal(map.size, 4);
});

test('no plan, or nothing to compact, marks no row', () => {
  assert.equal(planRowClasses(null).size, 0);
  assert.equal(planRowClasses({ ...plan, nothingToCompact: true }).size, 0);
});

test('lines: cut, split turn, tokens before → after, counts, warnings', () => {
  const lines = planLines(plan);
  const text = (key) => lines.filter((l) => l.key === key).map((l) => l.text);
  assert.deepEqual(text('cut'), ['cut point: first kept entry k1']);
  assert.match(text('split')[0], /first 1 entry is summarized separately/);
  assert.deepEqual(text('tokens'), ['tokens before 36,949 → after ≤ 41,658 (kept 20,007 + summary 21,651)']);
  assert.match(text('counts')[0], /^summarized 2 · turn prefix 1 · kept 2 · keepRecentTokens 20,000$/);
  assert.deepEqual(text('warning'), ['⚠ careful']);
  assert.equal(text('literal').length, 0);
});

test('nothing to compact: the reason and the tokens, no cut', () => {
  const lines = planLines({ ...plan, nothingToCompact: true, reason: 'Already compacted', warnings: [] });
  assert.deepEqual(lines.map((l) => l.key), ['leaf', 'nothing', 'tokens']);
  assert.equal(lines[1].text, 'nothing to compact: Already compacted');
});

test('call titles name the kind and maxTokens', () => {
  assert.equal(callTitle({ kind: 'turnPrefix', maxTokens: 8192 }, 1), 'call 2: turn-prefix summary · maxTokens 8,192');
  assert.equal(callTitle({ kind: 'short', maxTokens: 100, reasoning: 'high' }, 0), 'call 1: short summary · maxTokens 100 · reasoning high');
  // pi 1.6 sends no output cap: the field is absent from the report.
  assert.equal(callTitle({ kind: 'history', systemPrompt: 's', prompt: 'p' }, 0), 'call 1: history summary · no maxTokens sent');
});

test('requests a compaction summarizes: the terms to keep, found or not, and the instructions they make', async () => {
  const { requestText, keepInstructions } = await import('../../ui/src/plan/format.js');
  const preview = { entryId: 'u1', preview: 'Rename parseHeader', terms: [{ text: 'parseHeader', kind: 'identifier', found: null }, { text: 'src/a.rs', kind: 'path', found: null }], mayBeLost: false };
  assert.equal(requestText(preview), 'u1 · Rename parseHeader — parseHeader, src/a.rs');
  const lost = { entryId: 'u2', preview: 'Update docs/guide.md', terms: [{ text: 'docs/guide.md', kind: 'path', found: false }], mayBeLost: true };
  assert.equal(requestText(lost), '⚠ may be lost · u2 · Update docs/guide.md — ✗ docs/guide.md');
  assert.equal(requestText({ entryId: 'u3', preview: 'ok', terms: [], mayBeLost: false }), 'u3 · ok — nothing to check');
  assert.equal(keepInstructions([preview, lost, { ...preview, entryId: 'u9' }]), 'Keep these exactly as the user wrote them: `parseHeader`, `src/a.rs`, `docs/guide.md`.');
  assert.equal(keepInstructions([]), '');
});

test('the shares a summary keeps of the paths, commands and numbers, as contextree drops prints them', async () => {
  const { shareLines } = await import('../../ui/src/plan/format.js');
  const share = (total, kept) => ({ total, kept, share: kept == null || total === 0 ? null : kept / total, items: [] });
  assert.deepEqual(shareLines({ paths: share(2, 1), commands: share(0, 0), numbers: share(3, 1) }), [
    'paths kept: 1 of 2 (50.0 %)', 'commands kept: none to keep', 'numbers kept: 1 of 3 (33.3 %)',
  ]);
  assert.deepEqual(shareLines({ paths: share(1200, null), commands: share(2, null), numbers: share(0, null) }), [
    'paths: 1,200 (no summary yet)', 'commands: 2 (no summary yet)', 'numbers: 0 (no summary yet)',
  ]);
  assert.deepEqual(shareLines(undefined), []);
});
