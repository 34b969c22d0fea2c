import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStore } from '../../ui/src/store.js';
import { latestRequest, serial } from '../../ui/src/requests.js';

test('set merges; subscribers see the new state, the previous one and the patch', () => {
  const store = createStore({ a: 1, b: 2 });
  const seen = [];
  const stop = store.subscribe((s, prev, patch) => seen.push([s.a, prev.a, patch]));
  store.set({ a: 3 });
  assert.deepEqual(store.get(), { a: 3, b: 2 });
  stop();
  store.set({ a: 4 });
  assert.deepEqual(seen, [[3, 1, { a: 3 }]]);
});

test('on(keys) runs for the sets that name one of its keys, the same value again too', () => {
  const store = createStore({ rows: [], selected: -1, plan: null });
  const calls = [];
  store.on('rows', (s) => calls.push(['rows', s.rows.length]));
  store.on(['selected', 'plan'], (s, prev) => calls.push(['sel', prev.selected, s.selected]));
  store.set({ rows: [1, 2], selected: -1 });
  store.set({ selected: 1 });
  store.set({ selected: 1 });
  store.set({ other: true });
  assert.deepEqual(calls, [['rows', 2], ['sel', -1, -1], ['sel', -1, 1], ['sel', 1, 1]]);
});

test('listeners run in the order they were added', () => {
  const store = createStore({ x: 0 });
  const order = [];
  store.on('x', () => order.push('first'));
  store.on('x', () => order.push('second'));
  store.set({ x: 1 });
  assert.deepEqual(order, ['first', 'second']);
});

test('latestRequest: only the newest request is current; drop makes them all stale', () => {
  const guard = latestRequest();
  const a = guard.begin();
  assert.ok(a());
  const b = guard.begin();
  assert.ok(!a());
  assert.ok(b());
  guard.drop();
  assert.ok(!b());
  assert.ok(guard.begin()());
});

test('latestRequest: an answer overtaken by a newer request is dropped', async () => {
  const guard = latestRequest();
  const shown = [];
  const load = async (value, ms) => {
    const current = guard.begin();
    await new Promise((r) => setTimeout(r, ms));
    if (current()) shown.push(value);
  };
  await Promise.all([load('slow', 20), load('fast', 1)]);
  assert.deepEqual(shown, ['fast']);
});

test('serial: tasks run one at a time, in order; a failure is reported and the next still runs', async () => {
  const errors = [];
  const run = serial((err) => errors.push(err.message));
  const log = [];
  const task = (name, ms, fail = false) => async () => {
    log.push(`start ${name}`);
    await new Promise((r) => setTimeout(r, ms));
    log.push(`end ${name}`);
    if (fail) throw new Error(name);
    return name;
  };
  const a = run(task('a', 10));
  const b = run(task('b', 1, true));
  const c = run(task('c', 1));
  assert.equal(await a, 'a');
  await assert.rejects(b, /b/);
  assert.equal(await c, 'c');
  assert.deepEqual(log, ['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  assert.deepEqual(errors, ['b']);
});
