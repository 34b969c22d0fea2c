// The only module that touches window.__TAURI__ (withGlobalTauri). Everything else imports
// these functions, so it can be tested or mocked without Tauri.

/** An error returned by a command: `{ kind, message }` on the wire (src-tauri/src/error.rs). */
export class CommandError extends Error {
  constructor({ kind = 'unknown', message = 'unknown error' } = {}) {
    super(message);
    this.name = 'CommandError';
    this.kind = kind;
  }
}

// Looked up lazily, so importing this module works outside the app (node --test).
function tauri() {
  return window.__TAURI__.core;
}

async function call(cmd, args) {
  try {
    return await tauri().invoke(cmd, args);
  } catch (e) {
    throw new CommandError(typeof e === 'object' && e ? e : { message: String(e) });
  }
}

/**
 * Opens a session file; `null` opens the file given on the command line, else the demo.
 * Resolves to `{ path, fileName, dialect, entryCount, entries: [{ id, parentId, entryType,
 * role, line, tokens }] }`.
 */
export const openSession = (path = null) => call('open_session', { path });
