// The agent releases contextree pins (tests/agents) and, per agent, the modules whose
// behaviour contextree reproduces: session loading / migration / tree, context building,
// message conversion (convertToLlm), compaction (cut, prepare, summarization prompts),
// pruning, token estimation, and the prompt texts. Paths are relative to the package named
// by `pkg`; the ids follow the spec's notation (`ca:` the coding agent's `src/`, `core:`
// pi-agent-core's `src/`, …). A `*` in a path matches the files of one folder.

const PI_PROMPTS = [
	"COMPACTION_SUMMARY_PREFIX", "COMPACTION_SUMMARY_SUFFIX", "BRANCH_SUMMARY_PREFIX", "BRANCH_SUMMARY_SUFFIX",
	"SUMMARIZATION_SYSTEM_PROMPT", "SUMMARIZATION_PROMPT", "UPDATE_SUMMARIZATION_PROMPT",
	"TURN_PREFIX_SUMMARIZATION_PROMPT", "BRANCH_SUMMARY_PROMPT", "BRANCH_SUMMARY_PREAMBLE",
];
// The files pi keeps those constants in (contextree-core prompts/known.rs PI_SOURCE_FILES).
const PI_PROMPT_FILES = ["dist/core/messages.js", "dist/core/compaction/utils.js", "dist/core/compaction/compaction.js", "dist/core/compaction/branch-summarization.js"];

function piModules(scope) {
	const ca = `@${scope}/pi-coding-agent`;
	const ai = `@${scope}/pi-ai`;
	return [
		{ id: "ca:dist/core/session-manager.js", pkg: ca, path: "dist/core/session-manager.js", about: "session loading, migration, tree, buildSessionContext" },
		{ id: "ca:dist/core/messages.js", pkg: ca, path: "dist/core/messages.js", about: "convertToLlm, summary wrappers" },
		{ id: "ca:dist/core/compaction/compaction.js", pkg: ca, path: "dist/core/compaction/compaction.js", about: "cut point, prepareCompaction, estimateTokens, prompts" },
		{ id: "ca:dist/core/compaction/utils.js", pkg: ca, path: "dist/core/compaction/utils.js", about: "serializeConversation, file operations" },
		{ id: "ca:dist/core/compaction/branch-summarization.js", pkg: ca, path: "dist/core/compaction/branch-summarization.js", about: "branch summaries" },
		{ id: "ca:dist/core/agent-session.js", pkg: ca, path: "dist/core/agent-session.js", about: "auto-compaction trigger (threshold, overflow)" },
		{ id: "ca:dist/core/settings-manager.js", pkg: ca, path: "dist/core/settings-manager.js", about: "compaction settings defaults" },
		{ id: "ai:dist/utils/overflow.js", pkg: ai, path: "dist/utils/overflow.js", about: "isContextOverflow" },
	];
}

export const AGENTS = {
	pi: {
		about: "pi 0.73 (rule set pi@0.73)",
		package: "@mariozechner/pi-coding-agent",
		pinFile: "package.json",
		deps: ["@mariozechner/pi-ai"],
		modules: [
			...piModules("mariozechner"),
			{ id: "ai:dist/providers/transform-messages.js", pkg: "@mariozechner/pi-ai", path: "dist/providers/transform-messages.js", about: "transformMessages" },
		],
		prompts: { kind: "constants", pkg: "@mariozechner/pi-coding-agent", files: PI_PROMPT_FILES, names: PI_PROMPTS },
	},
	pi16: {
		about: "pi 1.6 (rule set pi@1.6)",
		package: "@earendil-works/pi-coding-agent",
		pinFile: "package.json",
		deps: ["@earendil-works/pi-ai"],
		modules: [
			...piModules("earendil-works"),
			{ id: "ai:dist/api/transform-messages.js", pkg: "@earendil-works/pi-ai", path: "dist/api/transform-messages.js", about: "transformMessages" },
			{ id: "ai:dist/utils/transcript.js", pkg: "@earendil-works/pi-ai", path: "dist/utils/transcript.js", about: "system message replay (getCurrentSystemMessage)" },
			{ id: "ai:dist/api/simple-options.js", pkg: "@earendil-works/pi-ai", path: "dist/api/simple-options.js", about: "clampMaxTokensToContext" },
		],
		prompts: { kind: "constants", pkg: "@earendil-works/pi-coding-agent", files: PI_PROMPT_FILES, names: PI_PROMPTS },
	},
	omp13: {
		about: "oh-my-pi 13 (rule set omp@13, npm workspace omp13/)",
		package: "@oh-my-pi/pi-coding-agent",
		pinFile: "omp13/package.json",
		// the newer majors are omp@18's line
		below: "14.0.0",
		deps: [],
		modules: [
			{ id: "ca:session/session-manager.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/session/session-manager.ts", about: "session loading, migration, tree, buildSessionContext" },
			{ id: "ca:session/messages.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/session/messages.ts", about: "convertToLlm" },
			{ id: "ca:session/compaction/compaction.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/session/compaction/compaction.ts", about: "cut point, prepareCompaction, estimateTokens" },
			{ id: "ca:session/compaction/utils.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/session/compaction/utils.ts", about: "serializeConversation, file operations" },
			{ id: "ca:session/compaction/pruning.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/session/compaction/pruning.ts", about: "pruneToolOutputs" },
			{ id: "ca:session/compaction/branch-summarization.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/session/compaction/branch-summarization.ts", about: "branch summaries" },
			{ id: "ca:session/agent-session.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/session/agent-session.ts", about: "auto-compaction trigger, prune calls" },
			{ id: "ca:config/settings-schema.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/config/settings-schema.ts", about: "compaction settings defaults" },
		],
		prompts: {
			kind: "files",
			files: [
				{ id: "ca:prompts/compaction/*.md", pkg: "@oh-my-pi/pi-coding-agent", path: "src/prompts/compaction/*.md" },
				{ id: "ca:prompts/system/summarization-system.md", pkg: "@oh-my-pi/pi-coding-agent", path: "src/prompts/system/summarization-system.md" },
			],
		},
	},
	omp: {
		about: "oh-my-pi 18 (rule sets omp@18, omp@18.3)",
		package: "@oh-my-pi/pi-coding-agent",
		pinFile: "package.json",
		deps: ["@oh-my-pi/pi-agent-core", "@oh-my-pi/pi-ai", "@oh-my-pi/pi-catalog"],
		// Where the core packages are when they are not published: inside the coding agent's
		// Bun bundle (omp-18.3.md).
		bundle: { pkg: "@oh-my-pi/pi-coding-agent", path: "dist/cli.js" },
		modules: [
			{ id: "ca:session/session-context.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/session/session-context.ts", about: "buildSessionContext" },
			{ id: "ca:session/session-manager.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/session/session-manager.ts", about: "open, tree, branch" },
			{ id: "ca:session/session-loader.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/session/session-loader.ts", about: "file loading, lenient parsing" },
			{ id: "ca:session/session-migrations.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/session/session-migrations.ts", about: "v1/v2 → v3 migration" },
			{ id: "ca:session/session-entries.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/session/session-entries.ts", about: "entry types" },
			{ id: "ca:session/session-title-slot.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/session/session-title-slot.ts", about: "title slot line" },
			{ id: "ca:session/messages.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/session/messages.ts", about: "convertToLlm (app roles)" },
			{ id: "ca:session/session-maintenance.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/session/session-maintenance.ts", about: "auto-compaction check, method choice, prune calls" },
			{ id: "ca:config/settings-schema.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/config/settings-schema.ts", about: "compaction settings defaults (≤ 18.2)" },
			{ id: "ca:session/context-settings.ts", pkg: "@oh-my-pi/pi-coding-agent", path: "src/session/context-settings.ts", about: "compaction settings defaults (18.3: the schema split by domain)" },
			{ id: "core:compaction/compaction.ts", pkg: "@oh-my-pi/pi-agent-core", path: "src/compaction/compaction.ts", about: "cut point, prepareCompaction, thresholds, summaries" },
			{ id: "core:compaction/utils.ts", pkg: "@oh-my-pi/pi-agent-core", path: "src/compaction/utils.ts", about: "serializeConversation, file operations" },
			{ id: "core:compaction/messages.ts", pkg: "@oh-my-pi/pi-agent-core", path: "src/compaction/messages.ts", about: "convertMessageToLlm (core roles)" },
			{ id: "core:compaction/pruning.ts", pkg: "@oh-my-pi/pi-agent-core", path: "src/compaction/pruning.ts", about: "pruneToolOutputs, superseded results" },
			{ id: "core:compaction/tool-protection.ts", pkg: "@oh-my-pi/pi-agent-core", path: "src/compaction/tool-protection.ts", about: "pruning protection matchers" },
			{ id: "core:compaction/branch-summarization.ts", pkg: "@oh-my-pi/pi-agent-core", path: "src/compaction/branch-summarization.ts", about: "branch summaries" },
			{ id: "core:compaction/transcript-tokens.ts", pkg: "@oh-my-pi/pi-agent-core", path: "src/compaction/transcript-tokens.ts", about: "anchored transcript estimate" },
			{ id: "core:compaction/openai.ts", pkg: "@oh-my-pi/pi-agent-core", path: "src/compaction/openai.ts", about: "OpenAI remote compaction (replay)" },
			{ id: "core:compaction/anthropic.ts", pkg: "@oh-my-pi/pi-agent-core", path: "src/compaction/anthropic.ts", about: "Anthropic-native compaction" },
			{ id: "core:compaction/shake.ts", pkg: "@oh-my-pi/pi-agent-core", path: "src/compaction/shake.ts", about: "shake" },
			{ id: "core:tokenizer.ts", pkg: "@oh-my-pi/pi-agent-core", path: "src/tokenizer.ts", about: "token counting" },
			{ id: "ai:dialect/*.ts", pkg: "@oh-my-pi/pi-ai", path: "src/dialect/*.ts", about: "transcript dialects (summary input)" },
			{ id: "catalog:identity/dialect.ts", pkg: "@oh-my-pi/pi-catalog", path: "src/identity/dialect.ts", about: "preferredDialect" },
			{ id: "catalog:model-tokenizer.ts", pkg: "@oh-my-pi/pi-catalog", path: "src/model-tokenizer.ts", about: "native tokenizer families" },
		],
		prompts: { kind: "files", files: [{ id: "core:compaction/prompts/*.md", pkg: "@oh-my-pi/pi-agent-core", path: "src/compaction/prompts/*.md" }] },
	},
};

// `omp18` is what tests/agents/oracle.mjs calls the same agent.
AGENTS.omp18 = AGENTS.omp;

/** The agent named `name`, or throws with the names there are. */
export function agent(name) {
	const a = AGENTS[name];
	if (!a) throw new Error(`unknown agent ${JSON.stringify(name)} (known: ${Object.keys(AGENTS).join(", ")})`);
	return a;
}
