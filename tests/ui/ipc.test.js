import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandError } from '../../ui/src/ipc.js';

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
