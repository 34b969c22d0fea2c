// The side-by-side dialog renders the read layer's `CompareReport`: the data is a real
// `contextree compare tests/fixtures/pi16/pi16-system.jsonl e4 f3 --dialect pi@1.6 --prompts
// own --json` (kept current by the CLI test `the_ui_tests_render_what_compare_prints`).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { cellParts, compareNotes, compareRows, compareSummary, gapText } from '../../ui/src/compare/format.js';
import { renderCompare } from '../../ui/src/compare/view.js';

const report = JSON.parse(readFileSync(new URL('./fixtures/compare-pi16-system.json', import.meta.url), 'utf8'));

test('the headline: each side, the difference, the ancestor, the shared prefix, the divergence, what only one side sends', () => {
  assert.equal(
    compareSummary(report),
    'A e4: 313 tokens · B f3: 486 tokens (B − A +173) · common ancestor r3 · shared 0 messages (0 tokens)'
      + ' · they diverge at message 1 · only in A: 0 messages (0 tokens) · only in B: 3 messages (173 tokens)',
  );
  const alike = { ...report, divergeAt: null, sharedCount: 7, difference: { ...report.difference, llmTokens: -2 } };
  assert.match(compareSummary(alike), /\(B − A −2\) · .* · shared 7 messages .* · the same context · /);
});

test('the notes: the rule set and why, and what each side cannot reproduce from the file', () => {
  assert.deepEqual(compareNotes(report), [
    'rules pi@1.6 (asked for explicitly)',
    'A: not reproducible from the file — context-hooks, system-placement',
    'B: not reproducible from the file — context-hooks, system-placement',
  ]);
});

test('a long run of same rows folds to the two rows next to each change, with its tokens', () => {
  const rows = compareRows(report);
  assert.deepEqual(rows.map((r) => r.op), ['changed', 'changed', 'same', 'same', 'gap', 'same', 'same', 'diverged']);
  const gap = /** @type {any} */ (rows[4]);
  const folded = report.rows.slice(4, 7);
  assert.equal(gap.count, 3);
  assert.equal(gap.tokens, folded.reduce((s, r) => s + r.a.message.llmTokens, 0));
  assert.equal(gapText(gap), `… 3 shared messages (${gap.tokens} tokens)`);
  // Every row of the report is drawn or counted in a gap, once.
  assert.equal(rows.filter((r) => r.op !== 'gap').length + gap.count, report.rows.length);
  // Nothing to fold: every row as it is.
  assert.equal(compareRows(report, 10).length, report.rows.length);
});

test('a cell: what a side sends (role, tokens, first line), what it does not (the entry and its state), or nothing', () => {
  const [hidden] = report.rows;
  assert.deepEqual(cellParts(hidden.a), { entryId: 'c1', sent: false, role: null, tokens: 0, note: 'hidden by an edit', preview: '', text: '' });
  const sent = cellParts(hidden.b);
  assert.equal(sent.sent, true);
  assert.equal(sent.role, 'system');
  assert.equal(sent.tokens, hidden.b.message.llmTokens);
  assert.equal(sent.note, '', 'a compaction sent needs no note');
  assert.equal(cellParts(report.rows.at(-1).a), null);
  // With the app's text: the first non-blank line previews it.
  const withText = { ...hidden.b, message: { ...hidden.b.message, text: '\n  \nfirst line\nsecond' } };
  assert.equal(cellParts(withText).preview, 'first line');
});

// A stand-in document: elements record children, classes, data and text; HTML is refused.
function fakeDialog() {
  const doc = {
    createElement: (tag) => ({
      tag, className: '', textContent: '', title: '', dataset: {}, children: [],
      append(...kids) { this.children.push(...kids); },
      addEventListener() {},
      set innerHTML(_) { throw new Error('innerHTML used'); },
    }),
  };
  return {
    ownerDocument: doc, open: false, children: [],
    showModal() { this.open = true; },
    replaceChildren(...kids) { this.children = kids; },
  };
}

test('the dialog draws the rows: each side by entry, unsent cells marked, branches side by side', () => {
  const dialog = fakeDialog();
  renderCompare(/** @type {any} */ (dialog), report, () => {});
  assert.ok(dialog.open);
  const find = (cls) => dialog.children.find((c) => c.className.split(' ').includes(cls));
  assert.equal(find('compare-summary').textContent, compareSummary(report));
  const rows = find('compare-rows').children;
  assert.deepEqual(rows.map((r) => r.dataset.op), compareRows(report).map((r) => r.op));
  const [first] = rows;
  const [left, right] = first.children;
  assert.equal(left.dataset.entryId, 'c1');
  assert.match(left.className, /compare-unsent/);
  assert.ok(left.children.some((c) => c.textContent === 'hidden by an edit'));
  assert.equal(right.dataset.entryId, 'c1');
  assert.ok(right.children.some((c) => c.textContent === 'system prompt'));
  const last = rows.at(-1).children;
  assert.match(last[0].className, /compare-empty/);
  assert.equal(last[1].dataset.entryId, 'f3');
});
