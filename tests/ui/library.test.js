import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  absoluteTime, debounce, entryCount, filterLibrary, humanSize, libraryCounts, libraryOffer,
  relativeTime, rootsLine, sessionOrder, sessionTitle, stepSession,
} from '../../ui/src/library/format.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

test('sizes are in binary units: bytes whole, one decimal below ten, none above', () => {
  assert.equal(humanSize(0), '0 B');
  assert.equal(humanSize(1023), '1023 B');
  assert.equal(humanSize(1024), '1.0 KiB');
  assert.equal(humanSize(1536), '1.5 KiB');
  assert.equal(humanSize(10 * 1024 - 1), '10 KiB'); // 9.999 would print as "10.0"
  assert.equal(humanSize(150 * 1024 * 1024), '150 MiB');
  assert.equal(humanSize(3.25 * 1024 ** 3), '3.3 GiB');
  assert.equal(humanSize(-1), '?');
  assert.equal(humanSize(undefined), '?');
});

test('last activity reads as a relative time, a clock slightly ahead is just now', () => {
  const now = Date.UTC(2026, 11, 2, 15, 50);
  assert.equal(relativeTime(now - 10_000, now), 'just now');
  assert.equal(relativeTime(now + 2 * MIN, now), 'just now');
  assert.equal(relativeTime(now + HOUR, now), 'in the future');
  assert.equal(relativeTime(now - 5 * MIN, now), '5 min ago');
  assert.equal(relativeTime(now - 3 * HOUR - 59 * MIN, now), '3 h ago');
  assert.equal(relativeTime(now - DAY - HOUR, now), 'yesterday');
  assert.equal(relativeTime(now - 4 * DAY, now), '4 days ago');
  assert.equal(relativeTime(now - 20 * DAY, now), '2 weeks ago');
  assert.equal(relativeTime(now - 95 * DAY, now), '3 months ago');
  assert.equal(relativeTime(now - 400 * DAY, now), '1 year ago');
  assert.equal(relativeTime(now - 800 * DAY, now), '2 years ago');
  assert.equal(relativeTime(null, now), 'unknown');
});

test('the absolute time is minutes in the given zone', () => {
  const t = Date.UTC(2026, 0, 5, 9, 7, 30);
  assert.equal(absoluteTime(t, 0), '2026-01-05 09:07');
  assert.equal(absoluteTime(t, -120), '2026-01-05 11:07'); // UTC+2: offset is -120
  assert.equal(absoluteTime(t, 600), '2026-01-04 23:07'); // UTC-10
  assert.equal(absoluteTime(null, 0), 'unknown');
});

test('a session is titled by its name, else its first request, else its file', () => {
  assert.equal(sessionTitle({ name: 'Refactor', firstRequest: 'fix it', fileName: 'a.jsonl' }), 'Refactor');
  assert.equal(sessionTitle({ name: '  ', firstRequest: 'fix it', fileName: 'a.jsonl' }), 'fix it');
  assert.equal(sessionTitle({ name: null, firstRequest: null, fileName: 'a.jsonl' }), 'a.jsonl');
  assert.equal(entryCount(1), '1 entry');
  assert.equal(entryCount(0), '0 entries');
});

// The shape of `list_sessions` (the read layer's LibraryReport: crates/contextree-read/src/library.rs), out of order on purpose.
function library() {
  const s = (path, modifiedMs, extra = {}) => ({
    path, fileName: path.split('/').pop(), dialect: 'pi', size: 10, entryCount: 2, id: null,
    cwd: null, name: null, firstRequest: null, modifiedMs, modified: null, created: null, valid: true, ...extra,
  });
  return [
    { project: '/home/u/old', certain: true, lastActivityMs: 100, sessions: [s('/r/old/1.jsonl', 100, { firstRequest: 'Write the README' })] },
    {
      project: '/home/u/app', certain: true, lastActivityMs: 900,
      sessions: [
        s('/r/app/a.jsonl', 300, { name: 'Parser work', dialect: 'omp' }),
        s('/r/app/b.jsonl', 900, { firstRequest: 'Fix the PARSER crash in lexer.rs' }),
        s('/r/app/c.jsonl', null, { firstRequest: 'unknown time' }),
      ],
    },
  ];
}

test('projects and their sessions come newest first; unknown times last', () => {
  const shown = filterLibrary(library(), '');
  assert.deepEqual(shown.map((p) => p.project), ['/home/u/app', '/home/u/old']);
  assert.deepEqual(sessionOrder(shown), ['/r/app/b.jsonl', '/r/app/a.jsonl', '/r/app/c.jsonl', '/r/old/1.jsonl']);
  assert.deepEqual(libraryCounts(shown), { projects: 2, sessions: 4 });
});

test('search keeps sessions containing every word, case-insensitive, in any field', () => {
  const parser = filterLibrary(library(), 'parser');
  assert.deepEqual(sessionOrder(parser), ['/r/app/b.jsonl', '/r/app/a.jsonl']);
  // Words may come from different fields: the project path and the first request.
  assert.deepEqual(sessionOrder(filterLibrary(library(), 'OLD readme')), ['/r/old/1.jsonl']);
  assert.deepEqual(sessionOrder(filterLibrary(library(), 'omp parser')), ['/r/app/a.jsonl']);
  // A project whose sessions all fail is dropped; its activity follows what is kept.
  const none = filterLibrary(library(), 'parser readme');
  assert.deepEqual(none, []);
  const kept = filterLibrary(library(), 'a.jsonl');
  assert.equal(kept[0].lastActivityMs, 300);
  // The input is not changed.
  const input = library();
  filterLibrary(input, 'parser');
  assert.equal(input[1].sessions.length, 3);
});

test('arrow keys step along the display order and stop at the ends', () => {
  const order = ['a', 'b', 'c'];
  assert.equal(stepSession(order, null, 1), 'a');
  assert.equal(stepSession(order, null, -1), 'c');
  assert.equal(stepSession(order, 'a', 1), 'b');
  assert.equal(stepSession(order, 'c', 1), 'c');
  assert.equal(stepSession(order, 'a', -1), 'a');
  assert.equal(stepSession([], 'a', 1), null);
});

test('the roots line says which folders were read, and which are missing or overridden', () => {
  const line = rootsLine([
    { path: '/h/.pi/agent/sessions', dialect: 'pi', origin: 'default', exists: true, sessionCount: 3 },
    { path: '/x/omp', dialect: 'omp', origin: 'environment', exists: false, sessionCount: 0 },
    { path: '/s', dialect: null, origin: 'override', exists: true, sessionCount: 1 },
  ]);
  assert.equal(line, 'pi: /h/.pi/agent/sessions (3) · omp: /x/omp (missing, environment) · sessions: /s (1, override)');
});

test('debounce runs once, with the last arguments, after the quiet time', () => {
  const pending = new Map();
  let next = 0;
  const timers = {
    setTimeout: (fn) => { pending.set(++next, fn); return next; },
    clearTimeout: (id) => pending.delete(id),
  };
  const calls = [];
  const typed = debounce((q) => calls.push(q), 120, timers);
  typed('p');
  typed('pa');
  typed('par');
  assert.equal(pending.size, 1);
  for (const fn of pending.values()) fn();
  assert.deepEqual(calls, ['par']);
});

test('debounce works with the real timers', async () => {
  const calls = [];
  const typed = debounce((q) => calls.push(q), 5);
  typed('a');
  typed('ab');
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.deepEqual(calls, ['ab']);
});

test('the start offer names the sessions found, only while the demo stands in for them', () => {
  const demo = { fileName: 'demo-session.jsonl', path: '/home/u/.cache/contextree/demo-session.jsonl' };
  assert.equal(libraryOffer(demo, 12), '12 sessions found — open library (l)');
  assert.equal(libraryOffer(demo, 1), '1 session found — open library (l)');
  // Nothing to offer: no sessions, or a count that did not arrive.
  assert.equal(libraryOffer(demo, 0), null);
  assert.equal(libraryOffer(demo, undefined), null);
  // A session the user named is what they wanted: no offer.
  assert.equal(libraryOffer({ fileName: '2026-01-01T00-00-00-000Z_x.jsonl' }, 12), null);
  assert.equal(libraryOffer(null, 12), null);
});
