import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callHeading, callLabel, foldProgress, formatClock, initialProgress, progressStatus, timeLeft } from '../../ui/src/actions/progress.js';

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

test('the clock shows whole seconds rounded up, minutes and hours', () => {
  assert.equal(formatClock(272_000), '4:32');
  assert.equal(formatClock(271_001), '4:32');
  assert.equal(formatClock(300_000), '5:00');
  assert.equal(formatClock(9_000), '0:09');
  assert.equal(formatClock(0), '0:00');
  assert.equal(formatClock(-5_000), '0:00', 'a passed deadline never goes negative');
  assert.equal(formatClock(3_723_000), '1:02:03');
  assert.equal(formatClock(NaN), '0:00');
});

test('the countdown runs from the attempt\'s deadlineMs, counted from when it arrived', () => {
  const t0 = 1_000_000;
  const s = fold([{ kind: 'attempt', call: 'history', provider: 'p', model: 'm', attempt: 0, deadlineMs: 300_000, at: t0 }]);
  assert.equal(s.calls[0].deadlineAt, t0 + 300_000);
  assert.equal(timeLeft(s, t0), 'time left: 5:00');
  assert.equal(timeLeft(s, t0 + 28_000), 'time left: 4:32');
  assert.equal(timeLeft(s, t0 + 299_500), 'time left: 0:01');
  assert.equal(timeLeft(s, t0 + 400_000), 'time left: 0:00');
  // A retry keeps the call's deadline; the next attempt restates it (less left, same end).
  const r = fold([
    { kind: 'attempt', call: 'history', provider: 'p', model: 'm', attempt: 0, deadlineMs: 300_000, at: t0 },
    { kind: 'retry', call: 'history', error: 'HTTP 503', delayMs: 2000, at: t0 + 1000 },
    { kind: 'attempt', call: 'history', provider: 'p', model: 'm', attempt: 1, deadlineMs: 297_000, at: t0 + 3000 },
  ]);
  assert.equal(r.calls[0].deadlineAt, t0 + 300_000);
  assert.equal(timeLeft(r, t0 + 60_000), 'time left: 4:00');
});

test('the soonest deadline of the calls still running counts; none when all are done', () => {
  const t0 = 50_000;
  const s = fold([
    { kind: 'attempt', call: 'history', provider: 'p', model: 'm', attempt: 0, deadlineMs: 300_000, at: t0 },
    { kind: 'attempt', call: 'turnPrefix', provider: 'p', model: 'm', attempt: 0, deadlineMs: 300_000, at: t0 + 10_000 },
  ]);
  assert.equal(timeLeft(s, t0 + 100_000), 'time left: 3:20', 'the history call ends first');
  const one = foldProgress(s, { kind: 'done', call: 'history' });
  assert.equal(one.calls[0].done, true);
  assert.equal(timeLeft(one, t0 + 100_000), 'time left: 3:30', 'then the turn prefix');
  const both = foldProgress(one, { kind: 'done', call: 'turnPrefix' });
  assert.equal(timeLeft(both, t0 + 100_000), null);
  // The short summary starts later with a deadline of its own.
  const short = foldProgress(both, { kind: 'attempt', call: 'short', provider: 'p', model: 'm', attempt: 0, deadlineMs: 120_000, at: t0 + 200_000 });
  assert.equal(timeLeft(short, t0 + 200_000), 'time left: 2:00');
  assert.equal(timeLeft(foldProgress(short, { kind: 'writing' }), t0 + 200_000), null);
});

test('no countdown without a deadline: old events, offline calls', () => {
  const s = fold([{ kind: 'attempt', call: 'branch', provider: 'p', model: 'm', attempt: 0 }, { kind: 'offline', call: 'history' }]);
  assert.equal(s.calls[0].deadlineAt, null);
  assert.equal(timeLeft(s, 0), null);
  assert.equal(timeLeft(initialProgress(), 0), null);
});

test('the ticker updates the countdown line in place, and hides it without a deadline', async () => {
  const { renderTimeLeft } = await import('../../ui/src/actions/view.js');
  const line = { textContent: '', hidden: true };
  const dialog = { querySelector: (sel) => (sel === '#write-time-left' ? line : null) };
  const s = fold([{ kind: 'attempt', call: 'history', provider: 'p', model: 'm', attempt: 0, deadlineMs: 272_000, at: 0 }]);
  renderTimeLeft(dialog, s, 0);
  assert.deepEqual(line, { textContent: 'time left: 4:32', hidden: false });
  renderTimeLeft(dialog, s, 1_000);
  assert.equal(line.textContent, 'time left: 4:31');
  renderTimeLeft(dialog, foldProgress(s, { kind: 'done', call: 'history' }), 2_000);
  assert.deepEqual(line, { textContent: '', hidden: true });
  renderTimeLeft({ querySelector: () => null }, s, 0); // no dialog line: nothing to do, no error
});
