// Installs agents/contextree into a pinned agent its own way and runs `/contextree` once.
//
//   bun tests/agent-command/run.mjs --agent pi16|omp18 --agents DIR --package DIR --session FILE
//                                   [--leaf ID]
//
// DIR is the pinned agents' folder (tests/agents, or $ORACLE). Everything happens in a scratch
// HOME:
//   pi16   pi 1.6.0's CLI runs `pi install PACKAGE`; then, as pi's startup does, its
//          DefaultResourceLoader reads the settings that wrote and loads the extension through
//          pi's extension loader, and createAgentSession opens SESSION.
//   omp18  oh-my-pi 18.2.3's CLI runs `omp plugin install PACKAGE` (it links the folder into
//          ~/.omp/plugins); then omp's createAgentSession discovers the installed plugin's
//          extension and initializeExtensions binds it, as omp's print and RPC modes do.
// SESSION is opened from a copy (the agents may rewrite what they open). `--leaf ID` moves the
// session's leaf there first, as /tree does, so the command must take the agent's leaf, not the
// file's last entry. Then `/contextree` goes through session.prompt(), as typed in the editor,
// with a UI context that records what the command tells the user. Prints JSON: { installed,
// copy, leafId, commands, notifications, errors, loadErrors }. The command's children get this
// process's environment (CONTEXTREE_APP_BIN, CONTEXTREE_BIN, DISPLAY, …).

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

function arg(name, required = true) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0 || i + 1 >= process.argv.length) {
    if (!required) return null;
    process.stderr.write(`run.mjs: --${name} is required\n`);
    process.exit(2);
  }
  return process.argv[i + 1];
}

const agent = arg('agent');
const agents = path.resolve(arg('agents'));
const pkg = path.resolve(arg('package'));
const session = path.resolve(arg('session'));
const leaf = arg('leaf', false);
const PACKAGES = { pi16: '@earendil-works/pi-coding-agent', omp18: '@oh-my-pi/pi-coding-agent' };
if (!PACKAGES[agent]) {
  process.stderr.write(`run.mjs: --agent is pi16 or omp18, not ${agent}\n`);
  process.exit(2);
}
const agentDir = path.join(agents, 'node_modules', PACKAGES[agent]);
if (!fs.existsSync(path.join(agentDir, 'package.json'))) {
  process.stderr.write(`run.mjs: ${PACKAGES[agent]} is not installed at ${agentDir} (scripts/install-agents.sh)\n`);
  process.exit(3);
}

// The agents resolve their folders from HOME when their modules load (Bun reads it once, at
// start), so the work runs in a child started with the scratch HOME; this process cleans up.
const SCRATCH = 'CONTEXTREE_AGENT_COMMAND_SCRATCH';
if (!process.env[SCRATCH]) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `contextree-${agent}-command-`));
  fs.mkdirSync(path.join(scratch, 'home'));
  fs.mkdirSync(path.join(scratch, 'project'));
  // Offline: no catalog refresh, no version check.
  const env = { ...process.env, [SCRATCH]: scratch, HOME: path.join(scratch, 'home'), PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1' };
  delete env.PI_CODING_AGENT_DIR;
  const run = spawnSync(process.execPath, process.argv.slice(1), { env, stdio: 'inherit' });
  fs.rmSync(scratch, { recursive: true, force: true });
  process.exit(run.status ?? 1);
}
const scratch = process.env[SCRATCH];
const cwd = path.join(scratch, 'project');

const notifications = [];
const errors = [];
// The agents spread the UI context into objects of their own, so it is a plain one: notify
// records, the dialogs answer nothing (the command asks no question), and the display setters
// the agents' built-in extensions call (omp's autoresearch sets a widget) do nothing.
const uiContext = {
  notify: (message, level = 'info') => notifications.push({ message, level }),
  select: async () => undefined,
  confirm: async () => false,
  input: async () => undefined,
  editor: async () => undefined,
  custom: async () => undefined,
  onTerminalInput: () => () => {},
};
for (const name of ['setStatus', 'setWidget', 'setFooter', 'setHeader', 'setTitle', 'setWorkingMessage', 'setEditorText', 'pasteToEditor']) {
  uiContext[name] = () => {};
}

/** The agent's own CLI, as a user runs it; its output. */
function cli(entry, args) {
  const run = spawnSync(process.execPath, [path.join(agentDir, entry), ...args], { cwd, env: process.env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${args.join(' ')} failed (${run.status}): ${run.stderr}${run.stdout}`);
  return `${run.stdout}${run.stderr}`.trim();
}

/** pi 1.6: `pi install`, then the resource loader and session its startup builds. */
async function startPi16(copy) {
  const installed = cli('dist/bundle/cli.js', ['install', pkg]);
  const pi = await import(globalThis.Bun.resolveSync(PACKAGES.pi16, agents));
  const resourceLoader = new pi.DefaultResourceLoader({ cwd, agentDir: pi.getAgentDir() });
  await resourceLoader.reload();
  const sessionManager = pi.SessionManager.open(copy, path.dirname(copy), cwd);
  if (leaf) sessionManager.branch(leaf);
  const { session: s } = await pi.createAgentSession({ cwd, resourceLoader, sessionManager });
  await s.bindExtensions({ uiContext, mode: 'tui', onError: (e) => errors.push(e.error) });
  return { installed, s, sessionManager, loadErrors: resourceLoader.getExtensions().errors };
}

/** oh-my-pi 18: `omp plugin install`, then the session and extension binding of its modes. */
async function startOmp18(copy) {
  const installed = cli('dist/cli.js', ['plugin', 'install', pkg]);
  const load = (sub) => import(globalThis.Bun.resolveSync(`${PACKAGES.omp18}/${sub}`, agents));
  const { createAgentSession } = await load('sdk');
  const { SessionManager } = await load('session/session-manager');
  const { initializeExtensions } = await load('modes/runtime-init');
  const sessionManager = await SessionManager.open(copy, path.dirname(copy));
  if (leaf) sessionManager.branch(leaf);
  const { session: s, extensionsResult } = await createAgentSession({
    cwd, sessionManager, hasUI: true, enableMCP: false, enableLsp: false, enableIrc: false, skipPythonPreflight: true,
  });
  await initializeExtensions(s, {
    mode: 'tui',
    uiContext,
    reportSendError: (_, e) => errors.push(e.message),
    reportRuntimeError: (e) => errors.push(e.error),
  });
  return { installed, s, sessionManager, loadErrors: extensionsResult?.errors ?? [] };
}

{
  const copy = path.join(scratch, path.basename(session));
  fs.copyFileSync(session, copy);
  const { installed, s, sessionManager, loadErrors } = await (agent === 'pi16' ? startPi16 : startOmp18)(copy);
  const commands = s.extensionRunner.getRegisteredCommands().map((c) => ({ name: c.name, description: c.description }));
  // What typing `/contextree` in the agent's editor does.
  await s.prompt('/contextree');
  const out = {
    installed, copy, leafId: sessionManager.getLeafId(), commands, notifications, errors,
    loadErrors: loadErrors.map((e) => e.error ?? String(e)),
  };
  process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
  await s.dispose?.();
}
// omp leaves timers and watchers behind; the answer is written, so end here.
process.exit(0);
