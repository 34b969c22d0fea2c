import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lastEntry, openFlow, reduceFlow, refusal, stepButtons } from '../../ui/src/actions/wizard.js';
import {
  FLOWS, WRITE_CLASSES, compactFlow, editFlow, navigateFlow, pruneFlow, undoFlow,
} from '../../ui/src/actions/specs.js';
import { summarySource } from '../../ui/src/actions/format.js';

// A flow of three steps, the way a new one is written.
const toy = {
  action: 'toy',
  title: 'Toy',
  can: () => true,
  start: async () => ({ n: 1 }),
  steps: [
    { id: 'form', view: ({ n }) => ({ lines: [`n = ${n}`] }), next: { label: 'Preview…', leave: (a, fields) => (fields.n > 0 ? { patch: { n: fields.n } } : { error: 'n must be positive', patch: { n: fields.n } }) } },
    { id: 'preview', back: 'form', view: () => ({ lines: [] }), next: { label: 'Next: confirm…' } },
    { id: 'confirm', back: 'form', view: () => ({ lines: [] }), apply: ({ n }) => `Write ${n}` },
  ],
  before: () => null,
  streamed: () => false,
  apply: async (answers) => ({ leafId: 'L', entries: [{ id: `e${answers.n}` }] }),
  selectAfter: lastEntry,
  again: 'restart',
};
const ids = (spec, state) => stepButtons(spec, state).map((b) => `${b.id}:${b.label}${b.primary ? '*' : ''}`);

test('stepping: next adds the answers and goes on; the last step writes', async () => {
  let s = openFlow(toy, await toy.start());
  assert.equal(s.step, 'form');
  assert.deepEqual(ids(toy, s), ['write-close:Cancel', 'write-next:Preview…*']);
  s = reduceFlow(toy, s, { type: 'next', patch: { n: 5 } });
  assert.equal(s.step, 'preview');
  assert.deepEqual(ids(toy, s), ['write-back:Back', 'write-next:Next: confirm…*']);
  s = reduceFlow(toy, s, { type: 'next', patch: {} });
  assert.equal(s.step, 'confirm');
  assert.deepEqual(ids(toy, s), ['write-back:Back', 'write-apply:Write 5*']);
  // No step after the last: next does nothing.
  assert.equal(reduceFlow(toy, s, { type: 'next', patch: {} }), s);
});

test('an invalid step stays, with its error and what was typed; next clears the error', () => {
  let s = openFlow(toy, { n: 1 });
  const out = toy.steps[0].next.leave(s.answers, { n: -2 });
  s = reduceFlow(toy, s, { type: 'invalid', ...out });
  assert.equal(s.step, 'form');
  assert.equal(s.error, 'n must be positive');
  assert.equal(s.answers.n, -2);
  s = reduceFlow(toy, s, { type: 'next', patch: { n: 3 } });
  assert.equal(s.error, null);
  assert.equal(s.step, 'preview');
});

test('going back: to the step named by `back`, answers kept; the first step has none', () => {
  let s = openFlow(toy, { n: 1 });
  assert.equal(reduceFlow(toy, s, { type: 'back' }), s);
  s = reduceFlow(toy, s, { type: 'next', patch: { n: 7 } });
  s = reduceFlow(toy, s, { type: 'next', patch: {} });
  s = reduceFlow(toy, s, { type: 'back' });
  assert.equal(s.step, 'form');
  assert.equal(s.answers.n, 7);
});

test('cancel closes; apply only from a step that writes; apply gets the answers; selectAfter', async () => {
  let s = openFlow(toy, { n: 1 });
  assert.equal(reduceFlow(toy, s, { type: 'close' }).status, 'closed');
  assert.equal(reduceFlow(toy, s, { type: 'apply' }), s);
  s = reduceFlow(toy, reduceFlow(toy, s, { type: 'next', patch: { n: 4 } }), { type: 'next', patch: {} });
  s = reduceFlow(toy, s, { type: 'apply' });
  assert.equal(s.status, 'running');
  // While it runs the steps do not move.
  assert.equal(reduceFlow(toy, s, { type: 'back' }), s);
  const result = await toy.apply(s.answers);
  s = reduceFlow(toy, s, { type: 'done', result });
  assert.equal(s.status, 'done');
  assert.deepEqual(s.after, { leafId: null, selectId: 'e4' });
  assert.deepEqual(lastEntry({ leafId: 'L', entries: [] }), { leafId: null, selectId: 'L' });
});

test('a failure is an error state; a refusal is final', () => {
  const s = reduceFlow(toy, openFlow(toy, {}), { type: 'failed', error: { kind: 'io', message: 'x' } });
  assert.equal(s.status, 'error');
  assert.deepEqual(refusal('nothing to compact: x'), { kind: 'refused', message: 'nothing to compact: x', final: true });
});

// ---- The app's flows, with stand-in IPC calls.
const session = { file: '/s/a.jsonl', fileName: 'a.jsonl' };
function fakeEnv(current, ipc) {
  const calls = [];
  const record = (name, answer) => async (...args) => {
    calls.push([name, ...args]);
    return typeof answer === 'function' ? answer(...args) : answer;
  };
  let form = { instructions: '', source: { mode: 'configured' }, summarize: true };
  return {
    calls,
    form: () => form,
    ipc: Object.fromEntries(Object.entries(ipc).map(([name, answer]) => [name, record(name, answer)])),
    current: () => ({ session, leafId: 'leaf', followFile: true, row: null, plan: null, ...current }),
    providers: async () => null,
    readSource(fields, list) {
      form = { ...form, instructions: fields.instructions ?? '', source: fields.source };
      return summarySource(fields.source, list);
    },
    remember(patch) {
      form = { ...form, ...patch };
    },
  };
}
const offline = { mode: 'offline' };
const written = { leafId: 'n2', entries: [{ id: 'n1' }, { id: 'n2' }], session };

test('every flow is named by its action, and each can start only on what it needs', () => {
  assert.deepEqual(Object.keys(FLOWS), ['compact', 'prune', 'navigate', 'undo', 'edit']);
  assert.ok(!compactFlow.can({ plan: null }) && compactFlow.can({ plan: {} }));
  assert.ok(pruneFlow.can({}));
  assert.ok(!navigateFlow.can({ row: null }) && navigateFlow.can({ row: { id: 'a' } }));
  for (const f of [undoFlow, editFlow]) {
    assert.ok(!f.can({ row: { entryType: 'message' } }) && f.can({ row: { entryType: 'compaction' } }));
  }
});

test('compact: form → plan again with the instructions → confirm → compact with the collected answers', async () => {
  const oldPlan = { leafId: 'L1', calls: [] };
  const plan = { leafId: 'L1', calls: [{ systemPrompt: 's', prompt: 'p' }], messagesToSummarizeIds: [], preview: { estimatedTokensAfter: 9, keptTokens: 5, summaryBudget: 4 } };
  const env = fakeEnv({ plan: oldPlan }, { compactionPreview: plan, compact: written });
  let s = openFlow(compactFlow, await compactFlow.start(env));
  assert.equal(s.step, 'form');
  assert.match(compactFlow.steps[0].view(s.answers, { form: env.form() }).lines[0], /leaf L1/);
  const out = await compactFlow.steps[0].next.leave(s.answers, { instructions: 'keep X', source: offline }, env);
  assert.deepEqual(env.calls[0], ['compactionPreview', 'L1', null, 'keep X']);
  s = reduceFlow(compactFlow, s, { type: 'next', ...out });
  assert.equal(s.step, 'confirm');
  assert.deepEqual(ids(compactFlow, s), ['write-back:Back', 'write-apply:Compact: append the entry*']);
  assert.equal(compactFlow.steps[1].view(s.answers, { session }).prompt.title, 'the exact prompt (call 1 of 1)');
  assert.equal(reduceFlow(compactFlow, s, { type: 'back' }).step, 'form');
  assert.equal(compactFlow.before(s.answers), 'L1');
  assert.equal(compactFlow.streamed(s.answers), true);
  const events = () => {};
  await compactFlow.apply(s.answers, env, events);
  assert.deepEqual(env.calls[1], ['compact', 'L1', 'keep X', null, { offline: true, provider: null }, events]);
  assert.deepEqual(compactFlow.selectAfter(written, s.answers), { leafId: null, selectId: 'n2' });
});

test('compact: nothing to compact is refused before any step; a bad source stays on the form', async () => {
  const env = fakeEnv({ plan: { leafId: 'L1', nothingToCompact: true, reason: 'too short' } }, {});
  await assert.rejects(compactFlow.start(env), (err) => err.kind === 'refused' && err.final && /too short/.test(err.message));
  const env2 = fakeEnv({ plan: { leafId: 'L1' } }, {});
  const out = await compactFlow.steps[0].next.leave({ oldPlan: { leafId: 'L1' }, list: null }, { instructions: null, source: { mode: 'custom', kind: 'openai-compatible', model: '' } }, env2);
  assert.match(out.error, /model/);
  assert.equal(env2.calls.length, 0);
});

test('compact: "again" restarts with the plan on screen, else closes and plans afresh', () => {
  const log = [];
  const ctl = (plan) => ({ current: () => ({ plan }), restart: () => log.push('restart'), close: () => log.push('close'), openPlan: () => log.push('plan') });
  compactFlow.again(ctl({}));
  compactFlow.again(ctl(null));
  assert.deepEqual(log, ['restart', 'close', 'plan']);
});

test('prune: preview (rows outlined) → confirm → prune the leaf; nothing to prune has only Close', async () => {
  const preview = { prunedIds: ['t1', 't2'] };
  const env = fakeEnv({ followFile: false, leafId: 'L2' }, { prunePreview: preview, prune: written });
  let s = openFlow(pruneFlow, await pruneFlow.start(env));
  assert.deepEqual(env.calls[0], ['prunePreview', 'L2']);
  assert.equal(s.step, 'preview');
  assert.deepEqual([...pruneFlow.marks(s.answers, 'preview')], [['t1', WRITE_CLASSES.pruned], ['t2', WRITE_CLASSES.pruned]]);
  assert.deepEqual(ids(pruneFlow, s), ['write-close:Cancel', 'write-next:Next: confirm…*']);
  s = reduceFlow(pruneFlow, s, { type: 'next', patch: {} });
  assert.deepEqual(ids(pruneFlow, s), ['write-close:Cancel', 'write-apply:Prune: rewrite the file*']);
  await pruneFlow.apply(s.answers, env);
  assert.deepEqual(env.calls[1], ['prune', 'L2']);
  assert.deepEqual(pruneFlow.selectAfter(written, s.answers), { leafId: 'L2', selectId: 't1' });
  const none = openFlow(pruneFlow, { leaf: null, preview: { prunedIds: [] } });
  assert.deepEqual(ids(pruneFlow, none), ['write-close:Close*']);
});

test('navigate: form → preview → confirm, Back to the form; the marks follow the step', async () => {
  const preview = { abandonedIds: ['x1'], fromLeafId: 'old', nothingToSummarize: false, call: { maxTokens: 2048, systemPrompt: '', prompt: '' } };
  const env = fakeEnv({ row: { id: 't' } }, { navigatePreview: preview, navigate: written });
  let s = openFlow(navigateFlow, await navigateFlow.start(env));
  assert.deepEqual([...navigateFlow.marks(s.answers, 'form')], [['t', WRITE_CLASSES.target]]);
  const out = await navigateFlow.steps[0].next.leave(s.answers, { summarize: true, instructions: 'focus', source: offline }, env);
  assert.deepEqual(env.calls[0], ['navigatePreview', 't', true, 'focus']);
  s = reduceFlow(navigateFlow, s, { type: 'next', ...out });
  assert.equal(s.step, 'preview');
  assert.deepEqual([...navigateFlow.marks(s.answers, 'preview')], [['x1', WRITE_CLASSES.abandoned], ['t', WRITE_CLASSES.target]]);
  assert.equal(navigateFlow.steps[1].view(s.answers).prompt.title, 'the exact prompt (maxTokens 2048)');
  s = reduceFlow(navigateFlow, s, { type: 'next', patch: {} });
  assert.deepEqual(ids(navigateFlow, s), ['write-back:Back', 'write-apply:Continue: append the branch summary*']);
  assert.equal(reduceFlow(navigateFlow, s, { type: 'back' }).step, 'form');
  assert.equal(navigateFlow.before(s.answers), 'old');
  assert.equal(navigateFlow.streamed(s.answers), true);
  await navigateFlow.apply(s.answers, env, null);
  assert.deepEqual(env.calls[1], ['navigate', 't', true, 'focus', { offline: true, provider: null }, null]);
});

test('navigate without a summary: no source asked, no instructions sent, the marker label', async () => {
  const preview = { abandonedIds: [], fromLeafId: null, nothingToSummarize: true };
  const env = fakeEnv({ row: { id: 't' } }, { navigatePreview: preview });
  let s = openFlow(navigateFlow, { targetId: 't', list: null });
  const out = await navigateFlow.steps[0].next.leave(s.answers, { summarize: false, instructions: 'ignored', source: { mode: 'custom' } }, env);
  assert.deepEqual(env.calls[0], ['navigatePreview', 't', false, null]);
  assert.equal(env.form().summarize, false);
  s = reduceFlow(navigateFlow, reduceFlow(navigateFlow, s, { type: 'next', ...out }), { type: 'next', patch: {} });
  assert.equal(stepButtons(navigateFlow, s)[1].label, 'Continue: append the marker');
  assert.equal(navigateFlow.streamed(s.answers), false);
});

test('undo: one confirmation, then undo the selected compaction', async () => {
  const env = fakeEnv({ row: { id: 'c1', entryType: 'compaction' } }, {
    undoCompactionPreview: { compactionId: 'c1', targetId: 'p1', entry: { type: 'custom', customType: 'contextree-continue' } },
    undoCompaction: written,
  });
  const s = openFlow(undoFlow, await undoFlow.start(env));
  assert.equal(s.step, 'confirm');
  assert.deepEqual([...undoFlow.marks(s.answers, 'confirm')], [['p1', WRITE_CLASSES.target]]);
  assert.deepEqual(ids(undoFlow, s), ['write-close:Cancel', 'write-apply:Undo: append the marker*']);
  assert.match(undoFlow.steps[0].view(s.answers, { session }).lines[0], /under p1/);
  await undoFlow.apply(reduceFlow(undoFlow, s, { type: 'apply' }).answers, env);
  assert.deepEqual(env.calls.map((c) => c.slice(0, 2)), [['undoCompactionPreview', 'c1'], ['undoCompaction', 'c1']]);
});

test('edit: an empty or unchanged summary stays on the form; Back keeps the text typed', async () => {
  const preview = { compactionId: 'c1', firstKeptEntryId: 'k', summary: 'old', note: null };
  const env = fakeEnv({ row: { id: 'c1', entryType: 'compaction' } }, { editSummaryPreview: preview, editSummary: written });
  let s = openFlow(editFlow, await editFlow.start(env));
  assert.deepEqual(editFlow.steps[0].view(s.answers).fields, [{ kind: 'summary', value: 'old' }]);
  const leave = (text) => editFlow.steps[0].next.leave(s.answers, { summary: text });
  assert.equal(leave('  ').error, 'The summary is empty.');
  assert.equal(leave('old').error, 'The summary is unchanged.');
  s = reduceFlow(editFlow, s, { type: 'invalid', ...leave('old') });
  assert.equal(s.error, 'The summary is unchanged.');
  s = reduceFlow(editFlow, s, { type: 'next', ...leave('new text') });
  assert.equal(s.step, 'confirm');
  s = reduceFlow(editFlow, s, { type: 'back' });
  assert.deepEqual(editFlow.steps[0].view(s.answers).fields, [{ kind: 'summary', value: 'new text' }]);
  s = reduceFlow(editFlow, s, { type: 'next', ...leave('new text') });
  await editFlow.apply(s.answers, env);
  assert.deepEqual(env.calls.at(-1), ['editSummary', 'c1', 'new text']);
});
