import type { SessionEntry } from "./session-entries";

/** The entries the model sees: everything after the last compaction's kept entry. */
export function buildSessionContext(entries: SessionEntry[]): SessionEntry[] {
	const last = entries.findLastIndex(e => e.type === "compaction");
	if (last < 0) return entries;
	const kept = entries.findIndex(e => e.id === entries[last].firstKeptEntryId);
	return kept < 0 ? entries.slice(last) : [entries[last], ...entries.slice(kept, last), ...entries.slice(last + 1)];
}
