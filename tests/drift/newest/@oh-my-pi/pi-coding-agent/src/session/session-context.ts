import type { SessionEntry } from "./session-entries";

/** The entries the model sees: everything after the last compaction's kept entry. */
export function buildSessionContext(entries: SessionEntry[]): SessionEntry[] {
	const last = entries.findLastIndex(e => e.type === "compaction");
	if (last < 0) return entries;
	const compaction = entries[last];
	// an empty id keeps the entries after the replay point (new in 1.1.0)
	const from = compaction.firstKeptEntryId === "" ? compaction.providerReplayThroughEntryId : compaction.firstKeptEntryId;
	const kept = entries.findIndex(e => e.id === from) + (compaction.firstKeptEntryId === "" ? 1 : 0);
	return kept < 0 ? entries.slice(last) : [compaction, ...entries.slice(kept, last), ...entries.slice(last + 1)];
}
