import { Tokenizer } from "../tokenizer";
import compactionSummaryPrompt from "./prompts/compaction-summary.md" with { type: "text" };

export interface CompactionSettings {
	enabled: boolean;
	reserveTokens: number;
	keepRecentTokens: number;
}

const KEEP_RECENT_TOKENS = 20000;

export const DEFAULT_COMPACTION_SETTINGS: CompactionSettings = {
	enabled: true,
	reserveTokens: 16384,
	keepRecentTokens: KEEP_RECENT_TOKENS,
};

interface Entry {
	id: string;
	type: string;
	message?: { role: string };
}

function isTurnStart(entry: Entry): boolean {
	return entry.type === "message" && entry.message?.role === "user";
}

export function findCutPoint(entries: Entry[], start: number, keepRecentTokens: number, tokenizer = new Tokenizer()) {
	let kept = 0;
	for (let i = entries.length - 1; i >= start; i--) {
		kept += tokenizer.countTokens(JSON.stringify(entries[i]));
		if (kept >= keepRecentTokens && isTurnStart(entries[i])) return { firstKeptEntryIndex: i, isSplitTurn: false };
	}
	return { firstKeptEntryIndex: start, isSplitTurn: false };
}

export function prepareCompaction(entries: Entry[], settings = DEFAULT_COMPACTION_SETTINGS) {
	if (!settings.enabled) return undefined;
	const cut = findCutPoint(entries, 0, settings.keepRecentTokens);
	return { firstKeptEntryId: entries[cut.firstKeptEntryIndex]?.id, prompt: compactionSummaryPrompt };
}
