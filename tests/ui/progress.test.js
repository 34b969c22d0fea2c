import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callHeading, callLabel, foldProgress, initialProgress, progressStatus } from '../../ui/src/actions/progress.js';

const fold = (events) => events.reduce(foldProgress, initialProgress());

test('deltas of each call go into their own block, in the order the calls started', () => {
  const s = fold([
    { kind: 'attempt', call: 'history', provider: 'local', model: 'm', attempt: 0 },
    { kind: 'delta', call: 'history', text: '## Goal\n' },
    { kind: 'attempt', call: 'turnPrefix', provider: 'local', model: 'm', attempt: 0 },
    { kind: 'delta', call: 'turnPrefix', text: 'prefix' },
    { kind: 'delta', call: 'history', text: 'Done.' },
  ]);
  assert.deepEqual(s.calls.map((c) => [c.call, c.text]), [['history', '## Goal\nDone.'], ['turnPrefix', 'prefix']]);
  assert.equal(callHeading(s.calls[0]), 'history summary · local · m');
  assert.equal(progressStatus(s), 'Streaming the turn-prefix summary…');
  assert.equal(s.events, 5);
});

test('a retry voids the text streamed so far and says why and how long it waits', () => {
  const s = fold([
    { kind: 'attempt', call: 'history', provider: 'p', model: 'm', attempt: 0 },
    { kind: 'delta', call: 'history', text: 'half a sum' },
    { kind: 'retry', call: 'history', error: 'HTTP 429', delayMs: 2000 },
    { kind: 'attempt', call: 'history', provider: 'p', model: 'm', attempt: 1 },
    { kind: 'delta', call: 'history', text: 'Whole.' },
  ]);
  assert.equal(s.calls[0].text, 'Whole.');
  assert.deepEqual(s.calls[0].notes, ['retry in 2.0 s: HTTP 429', 'attempt 2 of p · m']);
});

test('a fallback voids the text and names the failed provider; the next one takes over', () => {
  const s = fold([
    { kind: 'attempt', call: 'branch', provider: 'first', model: 'a', attempt: 0 },
    { kind: 'delta', call: 'branch', text: 'x' },
    { kind: 'fallback', call: 'branch', provider: 'first', error: 'HTTP 500' },
    { kind: 'attempt', call: 'branch', provider: 'second', model: 'b', attempt: 0 },
  ]);
  assert.equal(s.calls[0].text, '');
  assert.equal(s.calls[0].provider, 'second');
  assert.deepEqual(s.calls[0].notes, ['first failed (HTTP 500); trying the next provider']);
  assert.equal(callHeading(s.calls[0]), 'branch summary · second · b');
});

test('offline calls and the writing step', () => {
  const s = fold([{ kind: 'offline', call: 'history' }, { kind: 'writing' }, { kind: 'mystery' }]);
  assert.equal(s.calls[0].offline, true);
  assert.equal(callHeading(s.calls[0]), 'history summary · offline');
  assert.equal(s.writing, true);
  assert.equal(progressStatus(s), 'Summaries done; writing the entry…');
  assert.equal(s.events, 3);
  assert.equal(progressStatus(initialProgress()), 'Starting…');
  assert.equal(callLabel('short'), 'short summary');
});

test('folding never mutates the earlier state', () => {
  const a = fold([{ kind: 'attempt', call: 'history', provider: 'p', model: 'm', attempt: 0 }]);
  const snapshot = JSON.stringify(a);
  foldProgress(a, { kind: 'delta', call: 'history', text: 'x' });
  foldProgress(a, { kind: 'retry', call: 'history', error: 'e', delayMs: 1 });
  assert.equal(JSON.stringify(a), snapshot);
});
