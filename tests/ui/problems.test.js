import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_LISTED, diagnosticItems, errorText, lineIndex, looksUnreadable, problemsSummary } from '../../ui/src/problems/format.js';

test('an error says what failed, its kind and its cause', () => {
  assert.equal(errorText({ kind: 'load', message: 'cannot read `/x.jsonl`: No such file' }), 'Error (load): cannot read `/x.jsonl`: No such file');
  assert.equal(errorText({ kind: 'io', message: 'denied' }, 'Opening /x.jsonl'), 'Opening /x.jsonl failed (io): denied');
  assert.equal(errorText(new Error('boom')), 'Error (error): boom');
});

test('diagnostics list errors first, then by line, each with the entry its line holds', () => {
  const rows = [{ id: 'u1', line: 2 }, { id: 'a1', line: 4 }, { id: 'a1-dup', line: 4 }];
  const { items, more } = diagnosticItems([
    { line: 4, severity: 'warning', message: 'duplicate id' },
    { line: 3, severity: 'error', message: 'not JSON: dropped' },
    { line: 0, severity: 'error', message: 'no session header' },
    { line: 2, severity: 'warning', message: 'odd' },
  ], lineIndex(rows));
  assert.deepEqual(items.map((d) => [d.where, d.severity, d.entryId]), [
    ['file', 'error', null],
    ['line 3', 'error', null], // a dropped line holds no entry: nothing to jump to
    ['line 2', 'warning', 'u1'],
    ['line 4', 'warning', 'a1'], // the first entry read from the line
  ]);
  assert.equal(more, 0);
});

test('a file with a problem on every line lists the first ones and counts the rest', () => {
  const many = Array.from({ length: MAX_LISTED + 7 }, (_, i) => ({ line: i + 1, severity: 'error', message: 'bad' }));
  const { items, more } = diagnosticItems(many);
  assert.equal(items.length, MAX_LISTED);
  assert.equal(more, 7);
});

test('the title bar counts problems and errors', () => {
  assert.equal(problemsSummary([]), '');
  assert.equal(problemsSummary([{ severity: 'warning' }]), '1 problem');
  assert.equal(problemsSummary([{ severity: 'error' }, { severity: 'error' }]), '2 problems');
  assert.equal(problemsSummary([{ severity: 'error' }, { severity: 'warning' }, { severity: 'warning' }]), '3 problems (1 error)');
});

test('a file that read as no session at all opens the panel by itself', () => {
  assert.equal(looksUnreadable({ entryCount: 0, diagnostics: [{ line: 1, severity: 'error', message: 'x' }] }), true);
  assert.equal(looksUnreadable({ entryCount: 0, diagnostics: [] }), false);
  assert.equal(looksUnreadable({ entryCount: 5, diagnostics: [{ line: 1, severity: 'error', message: 'x' }] }), false);
});
