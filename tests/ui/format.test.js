// node --test tests/ui/ : pure UI modules, no DOM and no Tauri.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  entryKind,
  entryLabel,
  formatCount,
  formatTokens,
  sessionSummary,
  shortId,
} from '../../ui/src/entries/format.js';

test('message entries are labelled by role, others by type', () => {
  assert.equal(entryLabel({ entryType: 'message', role: 'user' }), 'user');
  assert.equal(entryLabel({ entryType: 'message', role: 'toolResult' }), 'tool result');
  assert.equal(entryLabel({ entryType: 'message', role: 'bashExecution' }), 'bash');
  assert.equal(entryLabel({ entryType: 'compaction', role: null }), 'compaction');
  assert.equal(entryLabel({ entryType: 'model_change', role: null }), 'model change');
  assert.equal(entryLabel({ entryType: 'branch_summary', role: null }), 'branch summary');
});

test('unknown roles and types are shown as they are, underscores read as spaces', () => {
  assert.equal(entryLabel({ entryType: 'message', role: 'developer' }), 'developer');
  assert.equal(entryLabel({ entryType: 'ttsr_injection', role: null }), 'ttsr injection');
  assert.equal(entryLabel({ entryType: 'message', role: null }), 'message');
});

test('entry kinds follow the legend: conversation, tools, summaries, the rest is metadata', () => {
  assert.equal(entryKind({ entryType: 'message', role: 'user' }), 'user');
  assert.equal(entryKind({ entryType: 'message', role: 'assistant' }), 'assistant');
  assert.equal(entryKind({ entryType: 'message', role: 'toolResult' }), 'tool');
  assert.equal(entryKind({ entryType: 'compaction', role: null }), 'summary');
  assert.equal(entryKind({ entryType: 'label', role: null }), 'meta');
  assert.equal(entryKind({ entryType: 'message', role: 'developer' }), 'meta');
});

test('counts get thousands separators whatever the locale', () => {
  assert.equal(formatCount(0), '0');
  assert.equal(formatCount(999), '999');
  assert.equal(formatCount(1000), '1,000');
  assert.equal(formatCount(131140), '131,140');
  assert.equal(formatCount(1234567), '1,234,567');
  assert.equal(formatCount(-2500), '-2,500');
});

test('token counts are compact, with one decimal only below ten units', () => {
  assert.equal(formatTokens(0), '0');
  assert.equal(formatTokens(999), '999');
  assert.equal(formatTokens(1000), '1k');
  assert.equal(formatTokens(2140), '2.1k');
  assert.equal(formatTokens(41200), '41k');
  assert.equal(formatTokens(999_499), '999k');
  // Rounding up to 1000k must switch to millions instead.
  assert.equal(formatTokens(999_500), '1M');
  assert.equal(formatTokens(1_250_000), '1.3M');
  assert.equal(formatTokens(25_000_000), '25M');
});

test('long ids are cut with an ellipsis, short ones and missing ones are kept', () => {
  assert.equal(shortId('a1b2c3d4'), 'a1b2c3d4');
  assert.equal(shortId('0194f0a2-7c1e-7b3a-9d2e-3f6a1b2c4d5e'), '0194f0a2-7c…');
  assert.equal(shortId(null), '');
  assert.equal(shortId(undefined), '');
});

test('the session summary counts entries and their tokens', () => {
  assert.equal(sessionSummary({ entryCount: 3, totalTokens: 2150 }), '3 entries · 2.1k tokens');
  assert.equal(sessionSummary({ entryCount: 1, totalTokens: 5 }), '1 entry · 5 tokens');
  assert.equal(sessionSummary({ entryCount: 0, totalTokens: 0 }), '0 entries · 0 tokens');
});

test('formatCount rounds halves up and never shows -0', () => {
  assert.equal(formatCount(2.5), '3');
  assert.equal(formatCount(-2.5), '-2');
  assert.equal(formatCount(-0.4), '0');
  assert.equal(formatCount(1234.5), '1,235');
});
