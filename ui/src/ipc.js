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
 * Opens a session file and makes it the open session; `null` opens the file given on the
 * command line, else the demo. Resolves to `{ path, fileName, dialect, entryCount,
 * totalTokens, leafId, diagnostics: [{ line, severity, message }] }`.
 */
export const openSession = (path = null) => call('open_session', { path });

/**
 * The tree rows for a leaf (`null`: the file's leaf): `{ leafId, rows: [{ id, parentId, indent, guides,
 * connector, isLeaf, childless, onPath, state, entryType, kind, label, tokens, line }] }`.
 */
export const treeRows = (leafId = null) => call('tree_rows', { leafId });

/** First-line previews of the rows with these ids: `[{ id, text }]`. */
export const rowPreviews = (ids) => call('row_previews', { ids });

/**
 * The context of a leaf (`null`: the file's leaf): `{ leafId, dialect, messageCount,
 * messageTokens, llmCount, llmTokens, estimate: { tokens, usageTokens, trailingTokens,
 * unknownAfterCompaction }, prompts: { source, name, detail }, messages: [{ i, role, entryId,
 * tokens, llmRole, llmTokens, text, truncated }] }`.
 */
export const contextView = (leafId = null) => call('context_view', { leafId });

/** One entry's line: `{ id, line, entryType, json, migrated, diagnostics }`. */
export const entryDetail = (id) => call('entry_detail', { id });

/**
 * The bar of a leaf (`null`: the file's leaf); `window` overrides the model table: `{ leafId,
 * window, windowSource, model, used, unknownAfterCompaction, reserve, threshold, keepRecent,
 * keepRecentFrom, overThreshold, wouldCompact, decision, reason }`.
 */
export const budget = (leafId = null, window = null) => call('budget', { leafId, window });

/**
 * What compacting a leaf (`null`: the file's leaf) would do; read only. `keepRecent` overrides
 * `keepRecentTokens`, `instructions` are `/compact TEXT`'s. `{ dialect, leafId,
 * nothingToCompact, reason, promptPack, firstKeptEntryId, isSplitTurn, tokensBefore,
 * keepRecentTokensUsed, keptTokens, summaryBudget, estimatedTokensAfter, summarizedIds,
 * turnPrefixIds, keptIds, droppedIds, historyLiteral, warnings, calls: [{ kind, systemPrompt,
 * prompt, maxTokens, reasoning }] }`.
 */
export const compactionPreview = (leafId = null, keepRecent = null, instructions = null) =>
  call('compaction_preview', { leafId, keepRecent, instructions });

/**
 * Calls `handler(session)` (an `openSession` result) whenever the open file changed on disk and
 * was read again (src-tauri/src/watch.rs). Resolves to a function that stops listening.
 */
export function onSessionChanged(handler) {
  return window.__TAURI__.event.listen('session-changed', (event) => handler(event.payload));
}
