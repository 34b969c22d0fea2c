// What /contextree runs, and running it. Plain Node modules only: the same file is loaded by
// pi (Node or its Bun binary) and by oh-my-pi (Bun), neither of which lends us its own helpers
// under the same name.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** How long `contextree serve` may take to print its address before we stop waiting. */
export const SERVE_WAIT_MS = 20_000;

/** Whether a graphical session is there to show the app in. */
export function hasDisplay(env) {
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/**
 * The command line for the session `file` shown from `leaf` (null: the file's own leaf).
 * `how` is `app` (the desktop app, detached) or `serve` (the browser UI over HTTP, for a
 * machine without a display). The one place the command lines are spelled out; the binaries
 * are `contextree-app` and `contextree` on PATH unless CONTEXTREE_APP_BIN / CONTEXTREE_BIN
 * name others.
 */
export function commandFor(how, file, leaf, env) {
  const leafArgs = leaf ? ['--leaf', leaf] : [];
  if (how === 'app') {
    return { how, program: env.CONTEXTREE_APP_BIN || 'contextree-app', args: [file, ...leafArgs] };
  }
  // A free port each time: a second /contextree, or another user's server, never finds 7777 taken.
  return { how, program: env.CONTEXTREE_BIN || 'contextree', args: ['serve', '--bind', '127.0.0.1:0', file, ...leafArgs] };
}

/** The command line as a person would type it (for messages). */
export function shellLine({ program, args }) {
  const quote = (s) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);
  return [program, ...args].map(quote).join(' ');
}

/** Resolves with the pid once `child` runs; rejects with the spawn error (no such program). */
function started(child) {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('spawn', () => resolve(child.pid));
  });
}

/**
 * Starts the app in its own process group with no tie to the agent's terminal, so it stays
 * open after the agent exits and its output never lands in the agent's screen.
 */
export async function startApp(cmd, env) {
  const child = spawn(cmd.program, cmd.args, { detached: true, stdio: 'ignore', env });
  const pid = await started(child);
  child.unref();
  return { pid };
}

/** The first `http(s)://…?token=…` address in `text`, or null. */
export function serveUrl(text) {
  const m = /https?:\/\/[^\s"'<>]+[?&]token=[^\s"'<>]+/.exec(text);
  return m ? m[0] : null;
}

/**
 * Starts `contextree serve` in the background and resolves with `{ url, pid, log }` once it
 * printed its address. Its output goes to a log file, not a pipe: the server outlives the
 * agent, and a pipe would break under it when the agent exits.
 */
export async function startServe(cmd, env, waitMs = SERVE_WAIT_MS) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contextree-serve-'));
  const log = path.join(dir, 'serve.log');
  const out = fs.openSync(log, 'a');
  let exited = null;
  let child;
  try {
    child = spawn(cmd.program, cmd.args, { detached: true, stdio: ['ignore', out, out], env });
    child.once('exit', (code, signal) => {
      exited = signal ? `killed by ${signal}` : `exit status ${code}`;
    });
    await started(child);
  } finally {
    fs.closeSync(out);
  }
  child.unref();
  const deadline = Date.now() + waitMs;
  for (;;) {
    const text = fs.readFileSync(log, 'utf8');
    const url = serveUrl(text);
    if (url) return { url, pid: child.pid, log };
    if (exited !== null) {
      throw new Error(`\`${shellLine(cmd)}\` stopped (${exited}) before printing its address:\n${tail(text)}`);
    }
    if (Date.now() > deadline) {
      throw new Error(`\`${shellLine(cmd)}\` (pid ${child.pid}) printed no address in ${waitMs / 1000} s; its output is in ${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The last few lines of a program's output, for an error message. */
function tail(text) {
  const lines = text.trimEnd().split('\n');
  return lines.slice(-8).join('\n') || '(no output)';
}
