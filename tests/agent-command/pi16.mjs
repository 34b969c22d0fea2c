// Loads agents/contextree into pi 1.6.0 the way pi does and runs `/contextree` once.
//
//   bun tests/agent-command/pi16.mjs --agents DIR --package DIR --session FILE [--leaf ID]
//
// DIR is the pinned agents' folder (tests/agents, or $ORACLE). In a scratch agent folder it runs
// pi's own `pi install PACKAGE` (its CLI), then builds a session as pi's startup does: pi's
// DefaultResourceLoader reads the settings `pi install` wrote and loads the extension through
// pi's extension loader; createAgentSession opens SESSION (a copy: pi may rewrite what it opens).
// `--leaf ID` moves the session's leaf there first, as /tree does, so the command must take the
// agent's leaf, not the file's last entry. Then `/contextree` goes through session.prompt(), as
// typed in pi's editor, with a UI context that records what the command tells the user.
// Prints JSON: { installed, settings, commands, notifications, errors }. The command's children
// get this process's environment (CONTEXTREE_APP_BIN, CONTEXTREE_BIN, DISPLAY, …).

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

function arg(name, required = true) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0 || i + 1 >= process.argv.length) {
    if (!required) return null;
    process.stderr.write(`pi16.mjs: --${name} is required\n`);
    process.exit(2);
  }
  return process.argv[i + 1];
}

const agents = path.resolve(arg('agents'));
const pkg = path.resolve(arg('package'));
const session = path.resolve(arg('session'));
const leaf = arg('leaf', false);
const PI = '@earendil-works/pi-coding-agent';
const piDir = path.join(agents, 'node_modules', PI);
if (!fs.existsSync(path.join(piDir, 'package.json'))) {
  process.stderr.write(`pi16.mjs: pi 1.6.0 is not installed at ${piDir} (scripts/install-agents.sh)\n`);
  process.exit(3);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'contextree-pi16-command-'));
const agentDir = path.join(scratch, 'agent');
const cwd = path.join(scratch, 'project');
fs.mkdirSync(cwd, { recursive: true });
// pi reads its folder from here; offline: no catalog refresh, no version check.
Object.assign(process.env, { PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1' });

try {
  // 1. pi's own installer, as a user would run it.
  const install = spawnSync(process.execPath, [path.join(piDir, 'dist/bundle/cli.js'), 'install', pkg], {
    cwd, env: { ...process.env, HOME: scratch }, encoding: 'utf8',
  });
  if (install.status !== 0) throw new Error(`pi install failed (${install.status}): ${install.stderr}${install.stdout}`);
  const settings = JSON.parse(fs.readFileSync(path.join(agentDir, 'settings.json'), 'utf8'));

  // 2. pi's startup: resources discovered from that folder, the session opened.
  const pi = await import(globalThis.Bun.resolveSync(PI, agents));
  const resourceLoader = new pi.DefaultResourceLoader({ cwd, agentDir });
  await resourceLoader.reload();
  const copy = path.join(scratch, path.basename(session));
  fs.copyFileSync(session, copy);
  const sessionManager = pi.SessionManager.open(copy, path.dirname(copy), cwd);
  if (leaf) sessionManager.branch(leaf);
  const { session: agent } = await pi.createAgentSession({ cwd, agentDir, resourceLoader, sessionManager });

  const notifications = [];
  const errors = [];
  // pi spreads the UI context into its own object, so it is a plain one: notify records, the
  // dialogs answer nothing (the command asks no question).
  const uiContext = {
    notify: (message, level = 'info') => notifications.push({ message, level }),
    select: async () => undefined, confirm: async () => false, input: async () => undefined,
    editor: async () => undefined, custom: async () => undefined,
  };
  await agent.bindExtensions({ uiContext, mode: 'tui', onError: (e) => errors.push(e.error) });
  const commands = agent.extensionRunner.getRegisteredCommands().map((c) => ({ name: c.name, description: c.description }));

  // 3. What typing `/contextree` in pi's editor does.
  await agent.prompt('/contextree');
  agent.dispose();
  const out = {
    installed: install.stdout.trim(), settings, copy, leafId: sessionManager.getLeafId(), commands, notifications, errors,
    loadErrors: resourceLoader.getExtensions().errors,
  };
  process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
