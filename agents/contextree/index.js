// `/contextree` for pi and oh-my-pi: opens contextree on the session and leaf the agent is on.
//
// Both agents load this file as an extension (a default-exported factory given the agent's
// extension API) and both give a command handler the same two things it needs:
// `ctx.sessionManager.getSessionFile()` and `.getLeafId()`. With a display it starts the
// desktop app; without one (an SSH session, a container) it starts `contextree serve` and
// shows the address to open in a browser. launch.js has the command lines.

import * as fs from 'node:fs';

import { commandFor, hasDisplay, shellLine, startApp, startServe } from './launch.js';

const USAGE = '/contextree [app|serve]: open this session in contextree (default: the app when there is a display)';

/** Registers `/contextree` with the agent `api` (pi's or oh-my-pi's `ExtensionAPI`). */
export default function contextree(api) {
  api.registerCommand('contextree', {
    description: 'Open this session in contextree, at the current leaf',
    getArgumentCompletions: (prefix) => {
      const items = ['app', 'serve'].filter((w) => w.startsWith(prefix)).map((w) => ({ value: w, label: w }));
      return items.length ? items : null;
    },
    handler: async (args, ctx) => {
      const say = (text, level = 'info') => (ctx.hasUI ? ctx.ui.notify(text, level) : console.log(text));
      try {
        say(await open(args.trim(), ctx.sessionManager, process.env));
      } catch (err) {
        say(err instanceof Error ? err.message : String(err), 'error');
      }
    },
  });
}

/** Runs what `/contextree ARGS` asks for; resolves with what to tell the user. */
async function open(args, sessions, env) {
  if (args && args !== 'app' && args !== 'serve') throw new Error(USAGE);
  const file = sessions.getSessionFile();
  if (!file) throw new Error('This session is not saved to a file, so contextree has nothing to open.');
  // The agents write the file once the first answer arrives (before that the path leads nowhere).
  if (!fs.existsSync(file)) {
    throw new Error(`The session file is written after the first answer; run /contextree once there is one (${file}).`);
  }
  const leaf = sessions.getLeafId() ?? null;
  const how = args || (hasDisplay(env) ? 'app' : 'serve');
  const cmd = commandFor(how, file, leaf, env);
  const at = leaf ? `at leaf ${leaf}` : 'at its last entry';
  if (how === 'app') {
    try {
      await startApp(cmd, env);
    } catch (err) {
      throw new Error(`Could not start \`${shellLine(cmd)}\` (${err.message}). Is contextree installed? CONTEXTREE_APP_BIN names the app's binary.`);
    }
    return `contextree is opening ${file} ${at}.`;
  }
  let served;
  try {
    served = await startServe(cmd, env);
  } catch (err) {
    const hint = err.code === 'ENOENT' ? ' Is contextree installed? CONTEXTREE_BIN names its command.' : '';
    throw new Error(`Could not start contextree serve. ${err.message}${hint}`);
  }
  const port = new URL(served.url).port;
  const tunnel = port ? ` From another machine: ssh -L ${port}:127.0.0.1:${port} THIS-HOST, then open it there.` : '';
  return `contextree serve (pid ${served.pid}) shows this session ${at}: ${served.url}${tunnel} Its log: ${served.log}; stop it with kill ${served.pid}.`;
}
