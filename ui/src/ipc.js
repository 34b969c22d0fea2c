// The only module that touches window.__TAURI__ (withGlobalTauri), and the only one that talks
// to `contextree serve` when the page runs in a browser instead: each command is sent over
// Tauri's IPC when `window.__TAURI__` is there, else over HTTP (`POST /api/call/<command>`
// with the same arguments, events from `GET /api/events`; crates/contextree-serve). Everything
// else imports these functions, so it can be tested or mocked without either.

/** An error returned by a command: `{ kind, message }` on the wire (crates/contextree-face/src/error.rs). */
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

/** Whether the page runs in the desktop app (else in a browser, served by `contextree serve`). */
export const inApp = () => typeof window !== 'undefined' && window.__TAURI__ != null;

async function call(cmd, args) {
  if (!inApp()) return http.call(cmd, args);
  try {
    return await tauri().invoke(cmd, args);
  } catch (e) {
    throw new CommandError(typeof e === 'object' && e ? e : { message: String(e) });
  }
}

/**
 * The browser's transport: one client id per tab (the server keeps one open session per id;
 * kept in sessionStorage, so a reload finds its session again), one event stream per tab, and
 * the numbers that stand in for Tauri's channels (a `progress` event names the call's number).
 * `fetchImpl`, `EventSourceImpl`, `storage` and `random` are the browser's; tests hand in their
 * own.
 * @param {{ fetchImpl?: typeof fetch, EventSourceImpl?: any, storage?: Pick<Storage, 'getItem' | 'setItem'> | null,
 *   random?: (bytes: Uint8Array) => void }} [io]
 */
export function httpTransport({ fetchImpl, EventSourceImpl, storage, random } = {}) {
  /** @type {typeof fetch} */
  const doFetch = (url, init) => (fetchImpl ?? globalThis.fetch)(url, init);
  let id = null;
  let source = null;
  let opened = null;
  let next = 1;
  const channels = new Map();
  const listeners = new Set();

  function clientId() {
    if (id) return id;
    id = storage?.getItem('contextree-client') ?? null;
    if (!id) {
      const bytes = new Uint8Array(16);
      (random ?? ((b) => globalThis.crypto.getRandomValues(b)))(bytes);
      id = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
      storage?.setItem('contextree-client', id);
    }
    return id;
  }

  /** The tab's event stream, opened once; resolves when it is open (or after a second). */
  function events() {
    if (opened) return opened;
    const ES = EventSourceImpl ?? globalThis.EventSource;
    source = new ES(`/api/events?client=${encodeURIComponent(clientId())}`);
    source.addEventListener('progress', (e) => {
      const { call: n, data } = JSON.parse(e.data);
      channels.get(n)?.(data);
    });
    source.addEventListener('session-changed', (e) => {
      const session = JSON.parse(e.data);
      for (const f of listeners) f(session);
    });
    opened = new Promise((resolve) => {
      source.addEventListener('open', () => resolve(undefined));
      setTimeout(resolve, 1000);
    });
    return opened;
  }

  return {
    clientId,
    /** A channel's stand-in: the number `progress` events for `onEvent` will carry. */
    channel(onEvent) {
      const n = next++;
      channels.set(n, (data) => onEvent?.(data));
      return n;
    },
    async call(cmd, args = {}) {
      const streams = Object.values(args ?? {}).some((v) => typeof v === 'number' && channels.has(v));
      if (streams) await events();
      let response;
      try {
        response = await doFetch(`/api/call/${cmd}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-contextree-client': clientId() },
          body: JSON.stringify(args ?? {}),
          credentials: 'same-origin',
        });
      } catch (e) {
        throw new CommandError({ kind: 'io', message: `the server cannot be reached: ${e?.message ?? e}` });
      } finally {
        for (const v of Object.values(args ?? {})) if (typeof v === 'number') channels.delete(v);
      }
      const type = response.headers.get('content-type') ?? '';
      if (!response.ok) {
        const body = type.includes('json') ? await response.json() : { kind: 'io', message: (await response.text()).trim() };
        throw new CommandError(body);
      }
      if (type.includes('octet-stream')) return response.arrayBuffer();
      return response.json();
    },
    async listen(handler) {
      listeners.add(handler);
      await events();
      return () => listeners.delete(handler);
    },
  };
}

const http = httpTransport({ storage: typeof sessionStorage === 'undefined' ? null : sessionStorage });

/** Saves `blob` as `name` through the browser's download (the page has no file dialog there). */
function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return name;
}

/** @typedef {import('./generated/reports').SessionReport} SessionReport */
/** @typedef {import('./generated/reports').ContextReport} ContextReport */

/**
 * Opens a session file and makes it the open session; `null` opens the file given on the
 * command line, else the demo. `dialect` (`pi`, `omp`, a rule set's name) forces the rules
 * instead of detecting them. Resolves to the read layer's `SessionReport`.
 * @param {string | null} [path]
 * @param {string | null} [dialect]
 * @returns {Promise<SessionReport>}
 */
export const openSession = (path = null, dialect = null) => call('open_session', { path, dialect });

/**
 * The leaf named on the command line (`contextree-app FILE --leaf ID` or `contextree serve FILE
 * --leaf ID`, as the agents' `/contextree` starts them), once the startup session is open: `null` when none was named;
 * rejects (kind `unknown-entry`) when the file has no such entry.
 * @returns {Promise<string | null>}
 */
export const startupLeaf = () => call('startup_leaf', {});

/**
 * The tree rows of a leaf (`null`: the file's leaf) as binary columns (an ArrayBuffer; decode
 * with tree/table.js's `decodeTable`; format in crates/contextree-face/src/tree/wire.rs). With the
 * `reading` of the table held, only the leaf's columns come while that reading is the open one;
 * with `heldLeaf` too (the leaf of that table), only the rows whose columns differ, when few.
 * @param {string | null} [leafId]
 * @param {number | null} [reading]
 * @param {string | null} [heldLeaf]
 */
export const treeTable = (leafId = null, reading = null, heldLeaf = null) => call('tree_table', { leafId, reading, heldLeaf });

/**
 * First-line previews of the rows with these ids.
 * @param {string[]} ids
 * @returns {Promise<import('./generated/reports').RowPreview[]>}
 */
export const rowPreviews = (ids) => call('row_previews', { ids });

/**
 * The context of a leaf (`null`: the file's leaf): the read layer's `ContextReport`, the same
 * document as `contextree context --json`, with each message's text (`text`, `truncated`,
 * `llmRole`, `llmTokens`) and the replayed system prompt (`system`).
 * @param {string | null} [leafId]
 * @returns {Promise<ContextReport>}
 */
export const contextView = (leafId = null) => call('context_view', { leafId });

/**
 * Two leaves' contexts side by side: the read layer's `CompareReport`, the same document as
 * `contextree compare --json` (the common ancestor, each side's totals and notes, the rows
 * aligned), with each sent message's text. `leafB` `null`: the file's leaf.
 * @param {string} leafA
 * @param {string | null} [leafB]
 * @returns {Promise<import('./generated/reports').CompareReport>}
 */
export const compareView = (leafA, leafB = null) => call('compare_view', { leafA, leafB });

/**
 * Tokenizer counts of a leaf's context (`tokenizer`: `o200k_base` or `cl100k_base`), computed
 * off the main thread: the read layer's `TokenCountsReport` (a count per message, null when not
 * sent, and the total).
 * @param {string | null} leafId
 * @param {string} tokenizer
 * @returns {Promise<import('./generated/reports').TokenCountsReport>}
 */
export const tokenCounts = (leafId, tokenizer) => call('token_counts', { leafId, tokenizer });

/**
 * The whole text of context message `index` (the panel's text is cut).
 * @param {string | null} leafId
 * @param {number} index
 * @returns {Promise<import('./generated/reports').MessageTextReport>}
 */
export const messageText = (leafId, index) => call('message_text', { leafId, index });

/** The whole context of a leaf as text, `format` `json` or `markdown` (nothing cut). */
export const exportContext = (leafId, format) => call('export_context', { leafId, format });

/**
 * Asks where to save the context of a leaf (the native save dialog, opened by the backend: the
 * page never names a path) and writes it there, Markdown for `.md`, else JSON. Resolves to the
 * path written, or null when cancelled.
 */
export async function saveContext(leafId) {
  if (inApp()) return call('save_context', { leafId });
  const text = await exportContext(leafId, 'markdown');
  return download(new Blob([text], { type: 'text/markdown' }), `context-${leafId ?? 'leaf'}.md`);
}

/**
 * Asks where to save the graph's picture and writes `png` (its bytes) there: the saved path,
 * `null` when the dialog was cancelled.
 * @param {Uint8Array} png
 * @returns {Promise<string | null>}
 */
export async function saveGraph(png) {
  if (inApp()) return call('save_graph', png);
  return download(new Blob([new Uint8Array(png)], { type: 'image/png' }), 'contextree-graph.png');
}

/**
 * One entry's line: the read layer's `EntryReport` (`contextree entry --json`).
 * @param {string} id
 * @returns {Promise<import('./generated/reports').EntryReport>}
 */
export const entryDetail = (id) => call('entry_detail', { id });

/**
 * The bar of a leaf (`null`: the file's leaf); `window` overrides the model table: the read
 * layer's `BudgetReport` (`contextree budget --json`).
 * @param {string | null} [leafId]
 * @param {number | null} [window]
 * @returns {Promise<import('./generated/reports').BudgetReport>}
 */
export const budget = (leafId = null, window = null) => call('budget', { leafId, window });

/**
 * What compacting a leaf (`null`: the file's leaf) would do; read only. `keepRecent` overrides
 * `keepRecentTokens`, `instructions` are `/compact TEXT`'s. The read layer's `PlanReport`, the
 * document `contextree compact --dry-run --json` prints (`nothingToCompact` tells which half).
 * @param {string | null} [leafId]
 * @param {number | null} [keepRecent]
 * @param {string | null} [instructions]
 * @returns {Promise<import('./generated/reports').PlanReport>}
 */
export const compactionPreview = (leafId = null, keepRecent = null, instructions = null) =>
  call('compaction_preview', { leafId, keepRecent, instructions });

/**
 * The user requests an existing compaction summarized, checked against its summary: the read
 * layer's `DropsReport` (`contextree drops --compaction ID --json`).
 * @param {string} compactionId
 * @returns {Promise<import('./generated/reports').DropsReport>}
 */
export const compactionRequests = (compactionId) => call('compaction_requests', { compactionId });

/**
 * Calls `handler(session)` (an `openSession` result) whenever the open file changed on disk and
 * was read again (crates/contextree-face/src/watch.rs). Resolves to a function that stops listening.
 * @param {(session: SessionReport) => void} handler
 */
export function onSessionChanged(handler) {
  if (!inApp()) return http.listen(handler);
  return window.__TAURI__.event.listen('session-changed', (event) => handler(event.payload));
}

// ---- Write flows (the commands of crates/contextree-face/src/write/). Every apply command is
// called only after the user confirmed what it writes; its preview command is read only.

/** A Channel whose messages go to `onEvent` (progress of a summary: `ProgressEvent`s). */
function progressChannel(onEvent) {
  if (!inApp()) return http.channel(onEvent);
  const channel = new (tauri().Channel)();
  channel.onmessage = (event) => onEvent?.(event);
  return channel;
}

/** Configured summarizers: `{ configPath, candidates: [{ name, kind, model, baseUrl, key, keySource }], remoteEndpoint }`. */
export const providers = () => call('providers', {});

/** Appends a compaction entry under `leafId`; `source`: `{ offline, provider, candidate }`. Resolves to a `WriteResult`. */
export const compact = (leafId, instructions, keepRecent, source, onEvent) =>
  call('compact', { leafId, instructions, keepRecent, source, onEvent: progressChannel(onEvent) });

/** Stops the running summary (the apply command then fails with kind `cancelled`). */
export const cancelSummary = () => call('cancel_summary', {});

/** `{ compactionId, summary, firstKeptEntryId, tokensBefore, parentId, note }`. */
export const editSummaryPreview = (compactionId) => call('edit_summary_preview', { compactionId });

/** A new compaction entry with the same boundary and the given summary (marked as supplied). */
export const editSummary = (compactionId, summary) => call('edit_summary', { compactionId, summary });

/** `{ compactionId, targetId, entry, note }`. */
export const undoCompactionPreview = (compactionId) => call('undo_compaction_preview', { compactionId });

/** Continues from the entry before a compaction (D14 marker). */
export const undoCompaction = (compactionId) => call('undo_compaction', { compactionId });

/**
 * What moving the file's leaf to `targetId` would append (and the exact summary prompt): the
 * read layer's `NavigateReport`, as `contextree navigate --dry-run --json` prints it.
 * @returns {Promise<import('./generated/reports').NavigateReport>}
 */
export const navigatePreview = (targetId, summarize, instructions) =>
  call('navigate_preview', { targetId, summarize, instructions });

/** Moves the file's leaf to `targetId`: a branch summary (`summarize`) or a continue marker. */
export const navigate = (targetId, summarize, instructions, source, onEvent) =>
  call('navigate', { targetId, summarize, instructions, source, onEvent: progressChannel(onEvent) });

/**
 * What pruning a leaf's tool output would do (the agent's own passes); read only: the read
 * layer's `PruneReport`, the document `contextree prune --dry-run --json` prints.
 * @param {string | null} [leafId]
 * @returns {Promise<import('./generated/reports').PruneReport>}
 */
export const prunePreview = (leafId = null) => call('prune_preview', { leafId });

/** Rewrites the file with the outputs pruned (a backup is kept). */
export const prune = (leafId = null) => call('prune', { leafId });

// ---- Library, Open…, settings.

/**
 * Every pi / omp session found: the read layer's `LibraryReport` (`contextree sessions
 * --json`); `search` keeps the sessions containing every word.
 * @param {string | null} [search]
 * @returns {Promise<import('./generated/reports').LibraryReport>}
 */
export const listSessions = (search = null) => call('list_sessions', { search });

/**
 * Brings the search index of every session up to date (new and grown files indexed, rewritten
 * ones replaced, deleted ones dropped); `onProgress({ done, total })` follows it. Resolves to
 * the read layer's `IndexedReport` (`contextree index --json`).
 * @param {(progress: { done: number, total: number }) => void} [onProgress]
 * @returns {Promise<import('./generated/reports').IndexedReport>}
 */
export const searchIndex = (onProgress) => call('search_index', { onProgress: progressChannel(onProgress) });

/**
 * Searches every session's text: the read layer's `SearchReport` (`contextree search --json`),
 * each hit with its state for its session's leaf.
 * @param {string} query
 * @param {number} [limit]
 * @returns {Promise<import('./generated/reports').SearchReport>}
 */
export const searchSessions = (query, limit = 200) => call('search_sessions', { query, limit });

/**
 * The native file picker (tauri-plugin-dialog, permission `dialog:allow-open` only): resolves
 * to the chosen `.jsonl` file's path, or null when cancelled; always null in a browser, which
 * opens only what the library lists (the server's roots).
 */
export async function pickSessionFile() {
  if (!inApp()) return null;
  try {
    const chosen = await window.__TAURI__.dialog.open({
      title: 'Open a session file',
      multiple: false,
      directory: false,
      filters: [{ name: 'Session files', extensions: ['jsonl'] }, { name: 'All files', extensions: ['*'] }],
    });
    return Array.isArray(chosen) ? (chosen[0] ?? null) : chosen;
  } catch (e) {
    throw new CommandError({ kind: 'dialog', message: typeof e === 'string' ? e : (e?.message ?? String(e)) });
  }
}

/** The app's settings: `{ path, settings: { theme, tokenizer, contextWindow, library: { pi, omp, only } }, warning }`. */
export const getSettings = () => call('settings', {});

/** The home folder, or null: paths inside it are shown as `~/…` (`paths.js`). */
export const homeDir = () => call('home_dir', {});

/** Validates and stores the settings (atomically, other keys of the file kept); resolves like `getSettings`. */
export const saveSettings = (settings) => call('save_settings', { settings });

/**
 * What the open session cost: the read layer's `UsageReport` (`contextree usage --json`): sums
 * per session, kind, model and branch, every record, the compactions.
 * @returns {Promise<import('./generated/reports').UsageReport>}
 */
export const usageReport = () => call('usage_report', {});

/**
 * What made the context of `leafId` (the file's leaf when null) grow: the context after each
 * turn, its `top` largest messages (10 when null), files read more than once (`contextree
 * weight --json`).
 * @param {string | null} leafId
 * @param {number | null} [top]
 * @returns {Promise<import('./generated/reports').WeightReport>}
 */
export const weightReport = (leafId, top = null) => call('weight_report', { leafId, top });
