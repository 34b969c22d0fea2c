import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandError, httpTransport } from '../../ui/src/ipc.js';

test('a command error keeps the wire kind and message of crates/contextree-face/src/error.rs', () => {
  const err = new CommandError({ kind: 'load', message: 'cannot read `x.jsonl`' });
  assert.ok(err instanceof Error);
  assert.equal(err.kind, 'load');
  assert.equal(err.message, 'cannot read `x.jsonl`');
});

test('a command error without fields is an unknown error', () => {
  const err = new CommandError();
  assert.equal(err.kind, 'unknown');
  assert.equal(err.message, 'unknown error');
});

/** A fetch that records the requests and answers with `answer(url, init)`. */
function fakeFetch(answer) {
  const seen = [];
  const fetchImpl = async (url, init) => {
    seen.push({ url, init });
    return answer(url, init);
  };
  return { seen, fetchImpl };
}

function response(status, body, type = 'application/json') {
  return {
    ok: status >= 200 && status < 300,
    status,
    headers: { get: (name) => (name === 'content-type' ? type : null) },
    json: async () => body,
    text: async () => String(body),
    arrayBuffer: async () => body,
  };
}

/** An EventSource stand-in the test fires events on. */
class FakeSource {
  static last = null;
  constructor(url) {
    this.url = url;
    this.handlers = {};
    FakeSource.last = this;
    queueMicrotask(() => this.fire('open', {}));
  }
  addEventListener(name, f) {
    (this.handlers[name] ??= []).push(f);
  }
  fire(name, event) {
    for (const f of this.handlers[name] ?? []) f(event);
  }
}

function memoryStorage() {
  const m = new Map();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => m.set(k, v) };
}

test('over HTTP a command is a POST with the invoke arguments and the tab id', async () => {
  const { seen, fetchImpl } = fakeFetch(() => response(200, { file: '/s.jsonl' }));
  const storage = memoryStorage();
  const t = httpTransport({ fetchImpl, storage, random: (b) => b.fill(171) });
  const got = await t.call('open_session', { path: '/s.jsonl', dialect: null });
  assert.deepEqual(got, { file: '/s.jsonl' });
  assert.equal(seen[0].url, '/api/call/open_session');
  assert.equal(seen[0].init.method, 'POST');
  assert.deepEqual(JSON.parse(seen[0].init.body), { path: '/s.jsonl', dialect: null });
  assert.equal(seen[0].init.headers['x-contextree-client'], 'ab'.repeat(16));
  assert.equal(storage.getItem('contextree-client'), 'ab'.repeat(16), 'kept for a reload of the tab');
  const again = httpTransport({ fetchImpl, storage, random: (b) => b.fill(1) });
  await again.call('home_dir', {});
  assert.equal(seen[1].init.headers['x-contextree-client'], 'ab'.repeat(16), 'the same tab, the same id');
});

test('over HTTP a refusal is a CommandError with the kind and message the server sent', async () => {
  const message = '`prune` writes, and this server was started without --allow-writes';
  const { fetchImpl } = fakeFetch(() => response(403, { kind: 'refused', message }));
  const t = httpTransport({ fetchImpl, storage: memoryStorage() });
  await assert.rejects(t.call('prune', { leafId: null }), (e) => e instanceof CommandError && e.kind === 'refused' && e.message === message);
  const text = fakeFetch(() => response(401, 'open the URL it printed\n', 'text/plain'));
  const u = httpTransport({ fetchImpl: text.fetchImpl, storage: memoryStorage() });
  await assert.rejects(u.call('home_dir', {}), (e) => e.kind === 'io' && e.message === 'open the URL it printed');
  const down = httpTransport({ fetchImpl: async () => { throw new Error('refused'); }, storage: memoryStorage() });
  await assert.rejects(down.call('home_dir', {}), (e) => e.kind === 'io' && /cannot be reached/.test(e.message));
});

test('over HTTP the tree table comes as bytes', async () => {
  const bytes = new Uint8Array([1, 2, 3]).buffer;
  const { fetchImpl } = fakeFetch(() => response(200, bytes, 'application/octet-stream'));
  const t = httpTransport({ fetchImpl, storage: memoryStorage() });
  assert.equal(await t.call('tree_table', { leafId: null, reading: null }), bytes);
});

test('over HTTP progress and reloads come from the tab event stream', async () => {
  const storage = memoryStorage();
  let source = null;
  const { seen, fetchImpl } = fakeFetch(async (url) => {
    // The stream is open before the call that streams is sent: its events can be sent back.
    source = FakeSource.last;
    source.fire('progress', { data: JSON.stringify({ call: 1, data: { done: 1, total: 2 } }) });
    source.fire('progress', { data: JSON.stringify({ call: 9, data: { done: 9, total: 9 } }) });
    return response(200, { url });
  });
  const t = httpTransport({ fetchImpl, EventSourceImpl: FakeSource, storage });
  const progress = [];
  const channel = t.channel((p) => progress.push(p));
  assert.equal(channel, 1);
  await t.call('search_index', { onProgress: channel });
  assert.equal(source.url, `/api/events?client=${storage.getItem('contextree-client')}`);
  assert.deepEqual(JSON.parse(seen[0].init.body), { onProgress: 1 });
  assert.deepEqual(progress, [{ done: 1, total: 2 }], 'only its own call');
  const sessions = [];
  const stop = await t.listen((s) => sessions.push(s));
  source.fire('session-changed', { data: JSON.stringify({ file: '/s.jsonl', entryCount: 3 }) });
  stop();
  source.fire('session-changed', { data: JSON.stringify({ file: '/s.jsonl', entryCount: 4 }) });
  assert.deepEqual(sessions, [{ file: '/s.jsonl', entryCount: 3 }]);
});
