import { test } from 'node:test';
import assert from 'node:assert/strict';
import { barGeometry, budgetTexts, parseWindow } from '../../ui/src/budget/bar.js';

const base = {
  window: 200_000, windowSource: 'model', model: 'anthropic/claude-sonnet-4-5', used: 100_000,
  reserve: 16_384, threshold: 183_616, keepRecent: 20_000, keepRecentFrom: 80_000,
  overThreshold: false, wouldCompact: false, decision: 'none', reason: 'below the threshold',
  unknownAfterCompaction: false,
};

test('the bar spans the window: fill, keep-recent marker, threshold and reserve zone', () => {
  const g = barGeometry(base);
  assert.equal(g.used, 50);
  assert.equal(g.keepRecent, 40);
  assert.equal(g.summarizable, 40);
  assert.equal(g.reserveStart, 91.808);
  assert.equal(g.windowEnd, 100);
  assert.equal(g.threshold, 91.808);
  assert.equal(g.overflow, false);
});

test('an overflowing context stretches the bar to the used tokens', () => {
  const g = barGeometry({ ...base, used: 400_000, keepRecentFrom: 380_000 });
  assert.equal(g.used, 100);
  assert.equal(g.windowEnd, 50);
  assert.equal(g.overflow, true);
  assert.equal(g.keepRecent, 95);
});

test('no threshold (auto-compaction off) has no marker; an empty context is all zeros', () => {
  assert.equal(barGeometry({ ...base, threshold: null }).threshold, null);
  const g = barGeometry({ ...base, window: 0, used: 0, reserve: 0, keepRecentFrom: 0 });
  assert.deepEqual([g.used, g.keepRecent, g.windowEnd], [0, 0, 0]);
});

test('texts: amount, window source, details and the auto-compaction alert', () => {
  const t = budgetTexts(base);
  assert.equal(t.amount, '100,000 / 200,000');
  assert.equal(t.percent, '50%');
  assert.equal(t.window, 'window of anthropic/claude-sonnet-4-5');
  assert.equal(t.detail, 'kept recent 20k │ older 80k   threshold 183,616   reserve 16,384');
  assert.equal(t.alert, '');
  const hot = budgetTexts({ ...base, used: 190_000, keepRecentFrom: 170_000, overThreshold: true, wouldCompact: true, decision: 'threshold' });
  assert.equal(hot.alert, '⚠ would auto-compact (threshold)');
  assert.equal(budgetTexts({ ...base, overThreshold: true }).alert, '⚠ over the threshold');
  assert.equal(budgetTexts({ ...base, windowSource: 'default' }).window, 'unknown model: default window');
  assert.equal(budgetTexts({ ...base, threshold: null }).detail.includes('no auto-compaction'), true);
  assert.ok(budgetTexts({ ...base, unknownAfterCompaction: true }).amount.startsWith('? '));
  assert.equal(t.note, '');
});

test("D24: a misleading agent number is shown as the agent's, the estimate beside it", () => {
  const t = budgetTexts({ ...base, used: 0, keepRecentFrom: 0, misleading: { estimate: 269_000, note: 'pi 0.73 … counts 0' } });
  assert.equal(t.amount, "agent's 0 (estimate 269,000 ⚑) / 200,000");
  assert.equal(t.note, 'pi 0.73 … counts 0');
});

test('a typed window: integers, commas, k and M; anything else is no override', () => {
  assert.equal(parseWindow('200000'), 200_000);
  assert.equal(parseWindow(' 200,000 '), 200_000);
  assert.equal(parseWindow('128k'), 128_000);
  assert.equal(parseWindow('1M'), 1_000_000);
  assert.equal(parseWindow(''), null);
  assert.equal(parseWindow('0'), null);
  assert.equal(parseWindow('-5'), null);
  assert.equal(parseWindow('abc'), null);
});
