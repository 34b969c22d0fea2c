// agents/contextree without an agent: the command lines, the address read from serve's output,
// and what /contextree tells the user before it starts anything. (Loaded by the real agents:
// crates/contextree-cli/tests/it/agent_command.rs.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import contextree from '../../agents/contextree/index.js';
import { commandFor, hasDisplay, serveUrl, shellLine } from '../../agents/contextree/launch.js';

test('the app and serve command lines, and the binaries the environment names', () => {
  assert.deepEqual(commandFor('app', '/s/a.jsonl', 'ab12', {}), { how: 'app', program: 'contextree-app', args: ['/s/a.jsonl', '--leaf', 'ab12'] });
  assert.deepEqual(commandFor('serve', '/s/a.jsonl', 'ab12', {}), { how: 'serve', program: 'contextree', args: ['serve', '--bind', '127.0.0.1:0', '/s/a.jsonl', '--leaf', 'ab12'] });
  // An empty session has no leaf: the file's own is shown.
  assert.deepEqual(commandFor('app', '/s/a.jsonl', null, { CONTEXTREE_APP_BIN: '/opt/app' }).args, ['/s/a.jsonl']);
  assert.equal(commandFor('app', '/s/a.jsonl', null, { CONTEXTREE_APP_BIN: '/opt/app' }).program, '/opt/app');
  assert.equal(commandFor('serve', '/s/a.jsonl', null, { CONTEXTREE_BIN: '/opt/ct' }).program, '/opt/ct');
});

test('a display is X11 or Wayland', () => {
  assert.equal(hasDisplay({}), false);
  assert.equal(hasDisplay({ DISPLAY: '' }), false);
  assert.equal(hasDisplay({ DISPLAY: ':0' }), true);
  assert.equal(hasDisplay({ WAYLAND_DISPLAY: 'wayland-0' }), true);
});

test('a command line is shown as it would be typed', () => {
  assert.equal(shellLine({ program: 'contextree', args: ['serve', '/s/a b.jsonl', '--leaf', 'x'] }), "contextree serve '/s/a b.jsonl' --leaf x");
  assert.equal(shellLine({ program: 'c', args: ["it's"] }), "c 'it'\\''s'");
});

test("serve's address is the first one with a token", () => {
  assert.equal(serveUrl('listening on 127.0.0.1:7777\nopen http://127.0.0.1:7777/?token=abc-1 in a browser\n'), 'http://127.0.0.1:7777/?token=abc-1');
  assert.equal(serveUrl('http://127.0.0.1:7777/ (no token yet)'), null);
  assert.equal(serveUrl('"https://h:1/app?x=1&token=t"'), 'https://h:1/app?x=1&token=t');
});

/** `/contextree ARGS` against a session manager giving `file` and `leaf`; what it told the user. */
async function run(args, file, leaf = 'L1') {
  const commands = new Map();
  contextree({ registerCommand: (name, spec) => commands.set(name, spec) });
  assert.deepEqual([...commands.keys()], ['contextree']);
  const said = [];
  const ctx = {
    hasUI: true,
    ui: { notify: (message, level) => said.push([level, message]) },
    sessionManager: { getSessionFile: () => file, getLeafId: () => leaf },
  };
  await commands.get('contextree').handler(args, ctx);
  return said;
}

test('without a session file, or before the agent wrote it, nothing is started and the user is told why', async () => {
  assert.deepEqual(await run('', undefined), [['error', 'This session is not saved to a file, so contextree has nothing to open.']]);
  const missing = path.join(os.tmpdir(), 'contextree-no-such-session.jsonl');
  assert.equal(fs.existsSync(missing), false);
  assert.deepEqual(await run('', missing), [
    ['error', `The session file is written after the first answer; run /contextree once there is one (${missing}).`],
  ]);
});

test('an argument other than app or serve gets the usage', async () => {
  const [[level, message]] = await run('browser', '/dev/null');
  assert.equal(level, 'error');
  assert.match(message, /^\/contextree \[app\|serve\]: /);
});

test('the argument completions are the two ways', () => {
  let spec;
  contextree({ registerCommand: (_, s) => { spec = s; } });
  assert.deepEqual(spec.getArgumentCompletions('s'), [{ value: 'serve', label: 'serve' }]);
  assert.equal(spec.getArgumentCompletions('x'), null);
});
