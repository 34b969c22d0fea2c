export const DEFAULT_PRUNE_CONFIG = { protectTokens: 40000, minimumSavings: 20000, protectedTools: ["skill"] };

const MIN_PRUNE_TOKENS = 50;

/** The indices of the tool results pruning removes, newest protected first. */
export function pruneToolOutputs(results: { toolName: string; tokens: number }[], config = DEFAULT_PRUNE_CONFIG): number[] {
	let protectedTokens = 0;
	const pruned: number[] = [];
	for (let i = results.length - 1; i >= 0; i--) {
		const r = results[i];
		if (config.protectedTools.includes(r.toolName) || r.tokens < MIN_PRUNE_TOKENS) continue;
		if (protectedTokens < config.protectTokens) {
			protectedTokens += r.tokens;
			continue;
		}
		pruned.push(i);
	}
	return pruned;
}
