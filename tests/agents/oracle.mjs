#!/usr/bin/env node
// Reference oracle for pi / oh-my-pi session-file handling.
//
//   node oracle.mjs [--impl pi|pi16|omp13|omp18|omp|omp183] COMMAND FILE [options]
//
// --impl pi   (default): @mariozechner/pi-coding-agent 0.73.1, run under Node.
// --impl pi16         : @earendil-works/pi-coding-agent 1.6.0 (pi renamed; needs Node >= 22, so it
//                       runs under Bun): system messages, context_edit/usage entries, projection.
// --impl omp13        : @oh-my-pi/pi-coding-agent 13.19.0 (installed in omp13/node_modules), the
//                       reference version of the omp dialect in the project's spec.
// --impl omp18 | omp  : @oh-my-pi/pi-coding-agent 18.2.3 (+ @oh-my-pi/pi-agent-core 18.2.3).
// --impl omp183       : @oh-my-pi/pi-coding-agent 18.3.4's sources on the newest published core
//                       (18.2.11; installed in omp183/node_modules): 18.3's coding-agent changes, not
//                       its core-side ones (historyRewriteAt, prepareCompaction after a "" snapshot).
// The omp versions ship TypeScript sources that only run under Bun; when started under Node the
// script re-executes itself with node_modules/.bin/bun (also for pi16).
// `prune` only exists in oh-my-pi; without --impl it uses omp13.
//
// Commands (all print one JSON document on stdout):
//   info      FILE                       header, entry counts, leaves, branch points, labels
//   context   FILE [--leaf ID] [--full]  buildSessionContext + convertToLlm, per-message tokens
//                                        (pi16: buildSessionProjection, as its AgentSession does)
//   cut       FILE [--leaf ID] [--keep-recent N] [--reserve N] [--window N] [--full]
//                                        prepareCompaction decision (no LLM call)
//   serialize FILE [--leaf ID] [--raw]   serializeConversation(convertToLlm(context.messages))
//   prune     FILE [--leaf ID] [--protect N] [--min-savings N] [--cache-warm N]
//                  [--supersede] [--no-useless]          pruneToolOutputs decision (omp)
//   prune     FILE --stale [--leaf ID] [--now MS] [--prefix-bound] [--no-supersede] [--no-useless]
//                  [--then-overflow]                     omp18, omp183: the per-turn stale pass
//                                        pruneSupersededToolResults as the agent calls it (then,
//                                        with --then-overflow, its pruneToolOutputs on the result)
//   auto      FILE --window N [--leaf ID] [--now MS] [--prefix-bound] [--reserve N]
//                                        omp18, omp183: the inputs of SessionMaintenance.checkCompaction's
//                                        threshold path rebuilt from the agent's exported functions
//                                        (isContextOverflow, isPayloadRejection, the stale pass, overflow
//                                        pruning, countMessages excluding encrypted reasoning,
//                                        calculateContextTokens, resolveThresholdTokens, shouldCompact)
//   branch    FILE --to TARGET [--from OLD_LEAF] [--budget N] [--model ID [--window N] [--reserve N]]
//                                        collectEntriesForBranchSummary + prepareBranchEntries
//                                        (--model, omp18/183: + generateBranchSummary's request with a
//                                        stand-in model, as `summarize` below)
//   tokens    FILE [--summary]           per-entry estimated tokens (file order)
//   transcript FILE [--leaf ID] [--models ID,ID,...]   (omp18, omp183) the summarizer input of omp 18:
//                                        serializeConversationForSummary(convertToLlm(context), d)
//                                        for every dialect d preferredDialect can name, plus
//                                        preferredDialect(id) of each --models id
//   summarize FILE --model ID [--window N] [--keep-recent N] [--reserve N]   (omp18, omp183)
//                                        prepareCompaction, then compact() with a stand-in model
//                                        ID that records every summarizer request (system
//                                        prompt, prompt, maxTokens) and answers "<kind answer>"
//   bench     FILE                       open+migrate+index, getTree, buildSessionContext,
//                                        estimate all entries; prints phase timings (ms)
//   batch     FILE [--jobs JOBFILE]      opens FILE once, then runs one command per input line
//                                        (a JSON array of arguments, e.g. ["cut","--keep-recent","8000"],
//                                        from JOBFILE or stdin); prints one JSON document per line
//
// Global options: --random-ids (keep the real crypto.randomUUID; by default it is replaced
// by a counter so v1->v2 migration ids are deterministic: 00000001, 00000002, ...),
// --pretty (indent JSON), --no-copy (open the file in place even when it needs migration;
// pi's SessionManager.open REWRITES such a file, so by default a temp copy is opened; pi16 also
// appends "\n" to a file whose last line is unterminated, which is then opened from a copy too).

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// node:crypto is taken with require(), not a static ESM import: under Bun a module's
// `import { randomUUID } from "crypto"` (pi16's session manager) only sees the deterministic
// randomUUID below if nothing materialized the ESM namespace of node:crypto before it is patched.
const nodeRequire = createRequire(import.meta.url);
const { createHash } = nodeRequire("node:crypto");
const HERE = path.dirname(fileURLToPath(import.meta.url));
const NM = path.join(HERE, "node_modules");
const IS_BUN = typeof globalThis.Bun !== "undefined";
const T0 = performance.now();

// ---------------------------------------------------------------------------
// argument parsing
// ---------------------------------------------------------------------------
const FLAGS_WITH_VALUE = new Set([
	"--impl", "--leaf", "--keep-recent", "--reserve", "--window", "--from", "--to", "--budget",
	"--protect", "--min-savings", "--cache-warm", "--jobs", "--now", "--models", "--model",
]);
function parseArgs(argv) {
	const opts = {};
	const pos = [];
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a.startsWith("--")) {
			const eq = a.indexOf("=");
			if (eq > 0) {
				opts[a.slice(2, eq)] = a.slice(eq + 1);
			} else if (FLAGS_WITH_VALUE.has(a)) {
				if (i + 1 >= argv.length) die(`missing value for ${a}`);
				opts[a.slice(2)] = argv[++i];
			} else {
				opts[a.slice(2)] = true;
			}
		} else pos.push(a);
	}
	return { opts, pos };
}
function die(msg, code = 2) {
	process.stderr.write(`oracle: ${msg}\n`);
	process.exit(code);
}
function num(v, dflt) {
	if (v === undefined) return dflt;
	const n = Number(v);
	if (!Number.isFinite(n)) fail(`not a number: ${v}`);
	return n;
}

const argv = process.argv.slice(2);
const { opts, pos } = parseArgs(argv);
const [command, fileArg] = pos;
const COMMANDS = ["info", "context", "cut", "serialize", "transcript", "summarize", "prune", "branch", "tokens", "bench", "batch", "auto"];
if (!command || opts.help || !COMMANDS.includes(command)) {
	// The header comment is the help text.
	const lines = fs.readFileSync(fileURLToPath(import.meta.url), "utf8").split("\n");
	let end = 1;
	while (end < lines.length && lines[end].startsWith("//")) end++;
	process.stderr.write(lines.slice(1, end).join("\n") + "\n");
	process.exit(command && !opts.help ? 2 : 0);
}
if (!fileArg) die("missing FILE");
const IMPL_ALIASES = { pi: "pi", pi16: "pi16", omp13: "omp13", omp18: "omp18", omp: "omp18", omp183: "omp183" };
const implArg = opts.impl ?? (command === "prune" ? "omp13" : "pi");
const impl = IMPL_ALIASES[implArg];
if (!impl) die(`unknown --impl ${implArg} (pi, pi16, omp13, omp18, omp = omp18, omp183)`);
// omp 18.2.3 and 18.3.4 share every omp 18 command (the second is the first plus 18.3's changes).
const isOmp18 = impl === "omp18" || impl === "omp183";
const isOmp = impl === "omp13" || isOmp18;
// omp ships TypeScript for Bun; pi 1.6.0 needs Node >= 22 (fs.globSync), this machine has Node 20.
const needsBun = isOmp || impl === "pi16";
if (command === "prune" && !isOmp) die("prune is only implemented by oh-my-pi (--impl omp13 or omp18)");

// omp and pi16 need Bun: re-exec ourselves under the npm-installed bun.
if (needsBun && !IS_BUN) {
	const bun = path.join(NM, ".bin", "bun");
	if (!fs.existsSync(bun)) die("bun not found in node_modules/.bin (npm ci)");
	const r = spawnSync(bun, [fileURLToPath(import.meta.url), ...argv, ...(opts.impl ? [] : ["--impl", impl])], {
		stdio: "inherit",
	});
	process.exit(r.status ?? 1);
}

// ---------------------------------------------------------------------------
// environment isolation + deterministic ids
// ---------------------------------------------------------------------------
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pi-oracle-"));
process.env.PI_CODING_AGENT_DIR = path.join(scratch, "agent");
process.env.OMP_APP_NAME = process.env.OMP_APP_NAME ?? "omp";
process.on("exit", () => {
	try {
		fs.rmSync(scratch, { recursive: true, force: true });
	} catch {}
});

let resetIds = () => {};
if (!opts["random-ids"]) {
	let counter = 0;
	resetIds = () => {
		counter = 0;
	};
	// pi takes randomUUID().slice(0, 8), omp takes .slice(-8): put the counter at both ends.
	const next = () => {
		counter++;
		const h = counter.toString(16).padStart(8, "0");
		return `${h}-0000-4000-8000-0000${h}`;
	};
	const require = createRequire(import.meta.url);
	const nodeCrypto = require("node:crypto");
	nodeCrypto.randomUUID = next;
	try {
		require("node:module").syncBuiltinESMExports();
	} catch {}
	try {
		Object.defineProperty(globalThis.crypto, "randomUUID", { value: next, configurable: true, writable: true });
	} catch {}
}

// ---------------------------------------------------------------------------
// backends
// ---------------------------------------------------------------------------
function pkgVersion(dir, nm = NM) {
	return JSON.parse(fs.readFileSync(path.join(nm, dir, "package.json"), "utf8")).version;
}
const imp = rel => import(pathToFileURL(path.join(NM, rel)).href);

async function loadPi() {
	const base = "@mariozechner/pi-coding-agent/dist/core";
	const sm = await imp(`${base}/session-manager.js`);
	const msgs = await imp(`${base}/messages.js`);
	const comp = await imp(`${base}/compaction/compaction.js`);
	const br = await imp(`${base}/compaction/branch-summarization.js`);
	const ut = await imp(`${base}/compaction/utils.js`);
	return {
		name: "pi",
		oracle: {
			impl: "pi",
			package: "@mariozechner/pi-coding-agent",
			version: pkgVersion("@mariozechner/pi-coding-agent"),
			runtime: `node ${process.version}`,
		},
		CURRENT_SESSION_VERSION: sm.CURRENT_SESSION_VERSION,
		open: async file => sm.SessionManager.open(file, path.dirname(path.resolve(file)), process.cwd()),
		buildContext: (mgr, leaf) => sm.buildSessionContext(mgr.getEntries(), leaf ?? mgr.getLeafId(), undefined),
		contextMeta: ctx => ({ model: ctx.model, thinkingLevel: ctx.thinkingLevel }),
		convertToLlm: msgs.convertToLlm,
		countMessage: m => comp.estimateTokens(m),
		entryMessage: e => {
			switch (e.type) {
				case "message":
					return e.message;
				case "custom_message":
					return msgs.createCustomMessage(e.customType, e.content, e.display, e.details, e.timestamp);
				case "branch_summary":
					return msgs.createBranchSummaryMessage(e.summary, e.fromId, e.timestamp);
				case "compaction":
					return msgs.createCompactionSummaryMessage(e.summary, e.tokensBefore, e.timestamp);
			}
			return undefined;
		},
		estimateContextTokens: messages => comp.estimateContextTokens(messages),
		defaultCompactionSettings: comp.DEFAULT_COMPACTION_SETTINGS,
		prepareCompaction: (pathEntries, settings) => comp.prepareCompaction(pathEntries, settings),
		shouldCompact: (tokens, window, settings) => comp.shouldCompact(tokens, window, settings),
		rawFindCutPoint: (pathEntries, settings) => {
			// Same boundary computation as pi's prepareCompaction, then the exported findCutPoint.
			let prev = -1;
			for (let i = pathEntries.length - 1; i >= 0; i--)
				if (pathEntries[i].type === "compaction") {
					prev = i;
					break;
				}
			let boundaryStart = 0;
			if (prev >= 0) {
				const k = pathEntries.findIndex(e => e.id === pathEntries[prev].firstKeptEntryId);
				boundaryStart = k >= 0 ? k : prev + 1;
			}
			const r = comp.findCutPoint(pathEntries, boundaryStart, pathEntries.length, settings.keepRecentTokens);
			return { boundaryStart, boundaryEnd: pathEntries.length, ...r };
		},
		collectEntriesForBranchSummary: br.collectEntriesForBranchSummary,
		prepareBranchEntries: (entries, budget) => br.prepareBranchEntries(entries, budget),
		serializeConversation: llm => ut.serializeConversation(llm),
		computeFileLists: ut.computeFileLists,
		getTree: mgr => mgr.getTree(),
		getLabel: (mgr, id) => mgr.getLabel(id),
	};
}

// pi 1.6.0 (@earendil-works/pi-coding-agent): imported by file path from dist/core like pi 0.73.1.
// Its AgentSession builds every request from sessionManager.buildSessionProjection() (= the
// three steps buildContextEntries -> context_edit projection -> messages); the agent loop then
// applies transformContext (identity without extensions) and convertToLlm before the provider.
async function loadPi16() {
	const spec = "@earendil-works/pi-coding-agent";
	if (!fs.existsSync(path.join(NM, spec, "package.json")))
		die(`${spec}@1.6.0 not found in ${NM} (run scripts/install-agents.sh)`);
	const base = `${spec}/dist/core`;
	const sm = await imp(`${base}/session-manager.js`);
	const msgs = await imp(`${base}/messages.js`);
	const comp = await imp(`${base}/compaction/compaction.js`);
	const br = await imp(`${base}/compaction/branch-summarization.js`);
	const ut = await imp(`${base}/compaction/utils.js`);
	// the same module instance session-manager.js imports (getCurrentSystemMessage)
	const ai = await import(globalThis.Bun.resolveSync("@earendil-works/pi-ai", path.join(NM, spec)));
	return {
		name: "pi16",
		oracle: {
			impl: "pi16",
			package: spec,
			version: pkgVersion(spec),
			piAi: pkgVersion("@earendil-works/pi-ai"),
			runtime: `bun ${globalThis.Bun.version}`,
			tokenizer: "estimateTokens = ceil(chars/4) over UTF-16 code units (images 4800 chars; system: content + sections + JSON of toolsAdded)",
		},
		CURRENT_SESSION_VERSION: sm.CURRENT_SESSION_VERSION,
		// loadEntriesFromFile appends "\n" to a file whose last line is unterminated, and an empty
		// file gets a header written into it: such files are opened from a temp copy.
		writesUnterminated: true,
		open: async file => sm.SessionManager.open(file, path.dirname(path.resolve(file)), process.cwd()),
		buildContext: (mgr, leaf) => {
			const projection =
				leaf === undefined || leaf === mgr.getLeafId()
					? mgr.buildSessionProjection()
					: sm.buildSessionProjection(mgr.getEntries(), leaf, mgr.byId);
			return { messages: projection.messages, model: projection.model, thinkingLevel: projection.thinkingLevel, projection };
		},
		contextMeta: ctx => ({ model: ctx.model, thinkingLevel: ctx.thinkingLevel }),
		convertToLlm: msgs.convertToLlm,
		countMessage: m => comp.estimateTokens(m),
		// 1.6.0 maps an entry to 0..2 messages (a compaction with systemMessage gives its checkpoint too)
		entryMessages: e => sm.sessionEntryToContextMessages(e),
		estimateContextTokens: messages => comp.estimateContextTokens(messages),
		defaultCompactionSettings: comp.DEFAULT_COMPACTION_SETTINGS,
		prepareCompaction: (pathEntries, settings) => comp.prepareCompaction(pathEntries, settings),
		shouldCompact: (tokens, window, settings) => comp.shouldCompact(tokens, window, settings),
		// what 1.6.0's threshold check compares with the window (prepareCompaction's tokensBefore when
		// there is something to compact)
		projectedContextTokens: pathEntries =>
			comp.estimateProjectedContextTokens(sm.buildSessionProjection(pathEntries), pathEntries).tokens,
		rawFindCutPoint: (pathEntries, settings) => {
			// 1.6.0's prepareCompaction cuts the projected entry list (buildSessionProjection(path))
			// with its internal findProjectedCutPoint, starting after the newest compaction (which the
			// projection puts first). The exported findCutPoint is run on the same list and boundary;
			// it differs from prepareCompaction through context edits (edited/omitted token counts,
			// the recovery-omission suffix rule) and older compactions inside the kept range (their
			// summary counts here, the projection gives them no messages).
			const projection = sm.buildSessionProjection(pathEntries);
			const list = projection.entries.map(e => e.sourceEntry);
			const prev = projection.entries.findIndex(e => e.sourceEntry.type === "compaction" && e.messages.length > 0);
			const boundaryStart = prev >= 0 ? prev + 1 : 0;
			const r = comp.findCutPoint(list, boundaryStart, list.length, settings.keepRecentTokens);
			return { indexSpace: "contextEntries", boundaryStart, boundaryEnd: list.length, ...r, __entries: list };
		},
		collectEntriesForBranchSummary: br.collectEntriesForBranchSummary,
		prepareBranchEntries: (entries, budget) => br.prepareBranchEntries(entries, budget),
		serializeConversation: llm => ut.serializeConversation(llm),
		computeFileLists: ut.computeFileLists,
		getTree: mgr => mgr.getTree(),
		getLabel: (mgr, id) => mgr.getLabel(id),
		sm,
		comp,
		ai,
	};
}

// oh-my-pi 18.3.4 lives in omp183/node_modules (its own npm project, omp183/package.json): its
// coding agent's sources on the newest published core packages, whose third-party dependencies it
// installs itself; @oh-my-pi/pi-natives is omp183/natives-shim (18.2.3's natives from
// ./node_modules plus stand-ins for the exports 18.3 added).
const OMP183_DIR = path.join(HERE, "omp183");
/** omp 18.2.3 (`variant` omp18, from ./node_modules) or 18.3.4 (omp183, from omp183/). */
async function loadOmp(variant = "omp18") {
	const base = variant === "omp183" ? OMP183_DIR : null;
	if (base) {
		if (!fs.existsSync(path.join(base, "node_modules/@oh-my-pi/pi-coding-agent/package.json")))
			die(`@oh-my-pi/pi-coding-agent@18.3.4 not found in ${base}/node_modules (run scripts/install-agents.sh)`);
		const { provideOmp183Modules } = await import(pathToFileURL(path.join(base, "provide-modules.mjs")).href);
		provideOmp183Modules();
	}
	const load = spec => (base ? import(globalThis.Bun.resolveSync(spec, base)) : import(spec));
	const nm = base ? path.join(base, "node_modules") : NM;
	const smMod = await load("@oh-my-pi/pi-coding-agent/session/session-manager");
	const ctxMod = await load("@oh-my-pi/pi-coding-agent/session/session-context");
	const msgs = await load("@oh-my-pi/pi-coding-agent/session/messages");
	const comp = await load("@oh-my-pi/pi-agent-core/compaction");
	const { Tokenizer } = await load("@oh-my-pi/pi-agent-core/tokenizer");
	const tokenizer = new Tokenizer(undefined); // no model: byte estimate (bytes+3)>>2 per fragment
	// 18.3 moved customMessageEntryMessage to pi-tui's chat/transcript-entry (session-context imports it).
	const customMessageEntryMessage =
		ctxMod.customMessageEntryMessage ?? (await load("@oh-my-pi/pi-tui/chat/transcript-entry")).customMessageEntryMessage;
	return {
		name: variant,
		load,
		oracle: {
			impl: variant,
			package: "@oh-my-pi/pi-coding-agent",
			version: pkgVersion("@oh-my-pi/pi-coding-agent", nm),
			agentCore: pkgVersion("@oh-my-pi/pi-agent-core", nm),
			runtime: `bun ${globalThis.Bun.version}`,
			tokenizer: "Tokenizer(no model) = sum over text fragments of (utf8Bytes+3)>>2, images 1200",
		},
		CURRENT_SESSION_VERSION: 3,
		open: async file =>
			smMod.SessionManager.open(file, path.dirname(path.resolve(file)), undefined, {
				initialCwd: process.cwd(),
				suppressBreadcrumb: true,
			}),
		buildContext: (mgr, leaf) =>
			leaf ? ctxMod.buildSessionContext(mgr.getEntries(), leaf, undefined) : mgr.buildSessionContext(),
		contextMeta: ctx => ({
			models: ctx.models,
			thinkingLevel: ctx.thinkingLevel,
			configuredThinkingLevel: ctx.configuredThinkingLevel,
			mode: ctx.mode,
		}),
		convertToLlm: msgs.convertToLlm,
		countMessage: m => tokenizer.countMessage(m),
		entryMessage: e => {
			switch (e.type) {
				case "message":
					return e.message;
				case "custom_message":
					return customMessageEntryMessage(e);
				case "branch_summary":
					return msgs.createBranchSummaryMessage(e.summary, e.fromId, e.timestamp);
				case "compaction":
					return msgs.createCompactionSummaryMessage(e.summary, e.tokensBefore, e.timestamp, {
						shortSummary: e.shortSummary,
					});
			}
			return undefined;
		},
		estimateContextTokens: messages => ({ tokens: tokenizer.countMessages(messages) }),
		defaultCompactionSettings: comp.DEFAULT_COMPACTION_SETTINGS,
		prepareCompaction: (pathEntries, settings) => comp.prepareCompaction(pathEntries, settings, undefined, tokenizer),
		shouldCompact: (tokens, window, settings) => comp.shouldCompact(tokens, window, settings),
		rawFindCutPoint: undefined,
		collectEntriesForBranchSummary: comp.collectEntriesForBranchSummary,
		prepareBranchEntries: (entries, budget) => comp.prepareBranchEntries(entries, tokenizer, budget),
		serializeConversation: llm => comp.serializeConversation(llm),
		computeFileLists: comp.computeFileLists,
		getTree: mgr => mgr.getTree(),
		getLabel: (mgr, id) => mgr.getLabel(id),
		thresholdTokens: (window, settings) => comp.resolveThresholdTokens(window, settings),
		pruneToolOutputs: (branchEntries, config) => comp.pruneToolOutputs(branchEntries, tokenizer, config),
		DEFAULT_PRUNE_CONFIG: comp.DEFAULT_PRUNE_CONFIG,
		comp,
		tokenizer,
		getLatestCompactionEntry: ctxMod.getLatestCompactionEntry,
	};
}

// oh-my-pi 13.19.0 lives in omp13/node_modules (npm workspace "omp13"), beside 18.2.3.
const OMP13_DIR = path.join(HERE, "omp13");
const OMP13_NM = path.join(OMP13_DIR, "node_modules");
async function loadOmp13() {
	const spec = "@oh-my-pi/pi-coding-agent";
	if (!fs.existsSync(path.join(OMP13_NM, spec, "package.json")))
		die(`${spec}@13.19.0 not found in ${OMP13_NM} (run scripts/install-agents.sh)`);
	const imp13 = sub => import(globalThis.Bun.resolveSync(`${spec}/${sub}`, OMP13_DIR));
	const smMod = await imp13("session/session-manager");
	const msgs = await imp13("session/messages");
	const comp = await imp13("session/compaction");
	const pruning = await imp13("session/compaction/pruning");
	// getMessageFromEntry of omp 13.19 compaction.ts (not exported): message entries,
	// custom_message and branch_summary entries produce messages; compaction entries do not.
	const cutEntryMessage = e => {
		if (e.type === "message") return e.message;
		if (e.type === "custom_message")
			return msgs.createCustomMessage(e.customType, e.content, e.display, e.details, e.timestamp, e.attribution);
		if (e.type === "branch_summary") return msgs.createBranchSummaryMessage(e.summary, e.fromId, e.timestamp);
		return undefined;
	};
	const estimateEntries = (entries, start, end) => {
		let total = 0;
		for (let i = start; i < end; i++) {
			const m = cutEntryMessage(entries[i]);
			if (m) total += comp.estimateTokens(m);
		}
		return total;
	};
	return {
		name: "omp13",
		oracle: {
			impl: "omp13",
			package: spec,
			version: pkgVersion(spec, OMP13_NM),
			agentCore: pkgVersion("@oh-my-pi/pi-agent-core", OMP13_NM),
			runtime: `bun ${globalThis.Bun.version}`,
			tokenizer: "estimateTokens = ceil(chars/4) over UTF-16 code units (images 4800 chars)",
		},
		CURRENT_SESSION_VERSION: smMod.CURRENT_SESSION_VERSION,
		open: async file => smMod.SessionManager.open(file, path.join(scratch, "sessions")),
		buildContext: (mgr, leaf) => smMod.buildSessionContext(mgr.getEntries(), leaf ?? mgr.getLeafId(), undefined),
		contextMeta: ctx => ({ models: ctx.models, thinkingLevel: ctx.thinkingLevel, mode: ctx.mode }),
		convertToLlm: msgs.convertToLlm,
		countMessage: m => comp.estimateTokens(m),
		entryMessage: e => {
			switch (e.type) {
				case "message":
					return e.message;
				case "custom_message":
					return msgs.createCustomMessage(e.customType, e.content, e.display, e.details, e.timestamp, e.attribution);
				case "branch_summary":
					return msgs.createBranchSummaryMessage(e.summary, e.fromId, e.timestamp);
				case "compaction":
					return msgs.createCompactionSummaryMessage(e.summary, e.tokensBefore, e.timestamp, e.shortSummary);
			}
			return undefined;
		},
		// 13.19 exports no context-token estimator; this is the sum of estimateTokens.
		estimateContextTokens: messages => ({ tokens: messages.reduce((a, m) => a + comp.estimateTokens(m), 0) }),
		defaultCompactionSettings: comp.DEFAULT_COMPACTION_SETTINGS,
		prepareCompaction: (pathEntries, settings) => comp.prepareCompaction(pathEntries, settings),
		shouldCompact: (tokens, window, settings) => comp.shouldCompact(tokens, window, settings),
		// resolveThresholdTokens is not exported in 13.19: the largest token count for which the real
		// shouldCompact is still false (binary search; null when it never fires).
		thresholdTokens: (window, settings) => {
			if (!comp.shouldCompact(window, window, settings)) return null;
			let lo = 0;
			let hi = window; // shouldCompact(hi) is true
			if (comp.shouldCompact(lo, window, settings)) return -1;
			while (hi - lo > 1) {
				const mid = Math.floor((lo + hi) / 2);
				if (comp.shouldCompact(mid, window, settings)) hi = mid;
				else lo = mid;
			}
			return lo;
		},
		rawFindCutPoint: (pathEntries, settings) => {
			// Same boundary and keepRecentTokens adaptation as omp 13.19's prepareCompaction, then
			// the exported findCutPoint.
			let prev = -1;
			for (let i = pathEntries.length - 1; i >= 0; i--)
				if (pathEntries[i].type === "compaction") {
					prev = i;
					break;
				}
			const boundaryStart = prev + 1;
			const boundaryEnd = pathEntries.length;
			let keepRecentTokensUsed = settings.keepRecentTokens;
			const lastUsage = comp.getLastAssistantUsage(pathEntries);
			let estimatedTokens = null;
			let promptTokens = null;
			if (lastUsage) {
				estimatedTokens = estimateEntries(pathEntries, boundaryStart, boundaryEnd);
				promptTokens = comp.calculatePromptTokens(lastUsage);
				const ratio = estimatedTokens > 0 ? promptTokens / estimatedTokens : 0;
				if (Number.isFinite(ratio) && ratio > 1)
					keepRecentTokensUsed = Math.max(1, Math.floor(keepRecentTokensUsed / ratio));
			}
			const r = comp.findCutPoint(pathEntries, boundaryStart, boundaryEnd, keepRecentTokensUsed);
			return { boundaryStart, boundaryEnd, estimatedTokens, promptTokens, keepRecentTokensUsed, ...r };
		},
		collectEntriesForBranchSummary: comp.collectEntriesForBranchSummary,
		prepareBranchEntries: (entries, budget) => comp.prepareBranchEntries(entries, budget),
		serializeConversation: llm => comp.serializeConversation(llm),
		computeFileLists: comp.computeFileLists,
		getTree: mgr => mgr.getTree(),
		getLabel: (mgr, id) => mgr.getLabel(id),
		pruneToolOutputs: (branchEntries, config) => pruning.pruneToolOutputs(branchEntries, config),
		DEFAULT_PRUNE_CONFIG: pruning.DEFAULT_PRUNE_CONFIG,
		getLatestCompactionEntry: smMod.getLatestCompactionEntry,
	};
}

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------
function readHeaderVersion(file) {
	const fd = fs.openSync(file, "r");
	try {
		const buf = Buffer.alloc(64 * 1024);
		const n = fs.readSync(fd, buf, 0, buf.length, 0);
		const first = buf.toString("utf8", 0, n).split("\n")[0];
		const h = JSON.parse(first);
		return h.type === "session" ? (h.version ?? 1) : null;
	} catch {
		return null;
	}
}

function sortedSet(s) {
	return [...s].sort();
}
function fileOpsJson(b, fileOps) {
	return {
		read: sortedSet(fileOps.read),
		written: sortedSet(fileOps.written),
		edited: sortedSet(fileOps.edited),
		...b.computeFileLists(fileOps),
	};
}

/** Map produced AgentMessages back to the session entries that produced them. */
function makeSourceFinder(entries) {
	const byMessage = new Map();
	const byKey = new Map();
	const msgTs = new Map();
	for (const e of entries) {
		let key;
		if (e.type === "message") {
			byMessage.set(e.message, e);
			if (e.message && e.message.timestamp !== undefined)
				msgTs.set(`${e.message.role}|${e.message.timestamp}`, e);
			continue;
		}
		const ts = new Date(e.timestamp).getTime();
		if (e.type === "custom_message") key = `custom|${e.customType}|${ts}`;
		else if (e.type === "branch_summary") key = `branchSummary|${e.fromId}|${ts}`;
		else if (e.type === "compaction") key = `compactionSummary|${e.tokensBefore}|${ts}`;
		if (key && !byKey.has(key)) byKey.set(key, e);
	}
	return m => {
		const direct = byMessage.get(m);
		if (direct) return direct;
		let key;
		if (m.role === "custom") key = `custom|${m.customType}|${m.timestamp}`;
		else if (m.role === "branchSummary") key = `branchSummary|${m.fromId}|${m.timestamp}`;
		else if (m.role === "compactionSummary") key = `compactionSummary|${m.tokensBefore}|${m.timestamp}`;
		if (key && byKey.has(key)) return byKey.get(key);
		return msgTs.get(`${m.role}|${m.timestamp}`);
	};
}

function describeMessages(b, messages, findSource, indexOf) {
	return messages.map((m, i) => {
		const src = findSource ? findSource(m) : undefined;
		const o = { i, role: m.role, tokens: b.countMessage(m) };
		if (findSource) {
			o.entryId = src ? src.id : null;
			o.entryIndex = src ? indexOf.get(src.id) : null;
		}
		if (m.role === "toolResult") {
			o.toolName = m.toolName;
			o.toolCallId = m.toolCallId;
		}
		if (m.role === "custom") o.customType = m.customType;
		return o;
	});
}

/** pi16: exact provenance of projected messages (buildSessionProjection keeps the source entry). */
function projectionSourceFinder(projection) {
	const src = new Map();
	for (const pe of projection.entries) for (const m of pe.messages) src.set(m, pe.sourceEntry);
	return m => src.get(m);
}

function contentLength(content) {
	if (typeof content === "string") return content.length;
	let n = 0;
	for (const c of content ?? []) if (c && c.type === "text" && typeof c.text === "string") n += c.text.length;
	return n;
}

/** pi16: what a system message declares (section names it sets / removes, tool names). */
function systemFacts(m) {
	const secs = m.sections ?? {};
	return {
		systemSections: Object.keys(secs).filter(k => secs[k] !== null),
		removedSections: Object.keys(secs).filter(k => secs[k] === null),
		toolsAdded: (m.toolsAdded ?? []).map(t => t.name),
		toolsRemoved: (m.toolsRemoved ?? []).map(t => t.name),
		contentLength: contentLength(m.content),
	};
}

/**
 * pi16 facts of a projected context: context edits and what they did, system messages, the
 * replayed (collapsed) system message, 1.6.0's own projected-context estimate. Also annotates the
 * described messages (system message facts, `editedBy` on replaced content).
 */
function pi16ContextFacts(ctx, branchEntries, described, describedLlm, llm, full) {
	const { projection } = ctx;
	const edits = new Map();
	for (const pe of projection.entries)
		if (pe.sourceEntry.type === "context_edit") edits.set(pe.sourceEntry.targetId, pe.sourceEntry);
	const inContext = new Set(projection.entries.map(pe => pe.sourceEntry.id));
	const contextEdits = [];
	const omittedEntryIds = [];
	const replacedBy = new Map(); // message object -> edit entry id
	for (const pe of projection.entries) {
		const e = pe.sourceEntry;
		if (e.type === "context_edit") {
			contextEdits.push({
				entryId: e.id,
				entryIndex: indexOf.get(e.id) ?? null,
				targetId: e.targetId,
				targetIndex: indexOf.get(e.targetId) ?? null,
				action: e.replacement === null ? "omit" : "replace",
				effective: edits.get(e.targetId) === e && inContext.has(e.targetId),
			});
		}
		const edit = edits.get(e.id);
		if (!edit) continue;
		if (edit.replacement === null) {
			if (b.sm.sessionEntryToContextMessages(e).length > 0) omittedEntryIds.push(e.id);
		} else {
			for (const m of pe.messages)
				if (m.role === "user" || m.role === "assistant" || m.role === "toolResult" || m.role === "custom")
					replacedBy.set(m, edit.id);
		}
	}
	for (const list of [
		[ctx.messages, described],
		[llm, describedLlm],
	]) {
		const [msgs, desc] = list;
		for (let i = 0; i < msgs.length; i++) {
			const m = msgs[i];
			if (m.role === "system") Object.assign(desc[i], systemFacts(m));
			if (replacedBy.has(m)) desc[i].editedBy = replacedBy.get(m);
		}
	}
	const cur = b.ai.getCurrentSystemMessage(ctx.messages);
	const out = {
		contextEntryCount: projection.entries.length,
		contextEditsOnPath: branchEntries.filter(e => e.type === "context_edit").length,
		contextEdits,
		omittedEntryIds,
		replacedEntryIds: [...new Set(projection.entries.filter(pe => pe.messages.some(m => replacedBy.has(m))).map(pe => pe.sourceEntry.id))],
		systemMessageCount: ctx.messages.filter(m => m.role === "system").length,
		currentSystem: cur
			? {
					tokens: b.countMessage(cur),
					contentLength: contentLength(cur.content),
					sections: Object.keys(cur.sections ?? {}),
					tools: (cur.toolsAdded ?? []).map(t => t.name),
					timestamp: cur.timestamp,
				}
			: null,
		estimateProjectedContextTokens: b.comp.estimateProjectedContextTokens(projection, branchEntries),
	};
	if (full) out.currentSystemMessage = cur ?? null;
	return out;
}

function sum(xs, f) {
	let s = 0;
	for (const x of xs) s += f(x);
	return s;
}

// Bun's stdout to a pipe is asynchronous: process.exit() right after write() truncates large
// outputs, so every write is awaited before exiting.
const pendingWrites = [];
function writeOut(s) {
	pendingWrites.push(new Promise(resolve => process.stdout.write(s, () => resolve())));
}
function emit(obj) {
	const s = opts.pretty ? JSON.stringify(obj, null, 2) : JSON.stringify(obj);
	writeOut(s + "\n");
}

// ---------------------------------------------------------------------------
// main
// ---------------------------------------------------------------------------
const timings = {};
const mark = (name, t) => {
	timings[name] = Math.round((performance.now() - t) * 100) / 100;
	return performance.now();
};

let t = performance.now();
const b =
	impl === "pi"
		? await loadPi()
		: impl === "pi16"
			? await loadPi16()
			: impl === "omp13"
				? await loadOmp13()
				: await loadOmp(impl);
t = mark("import", t);

const filePath = path.resolve(fileArg);
if (!fs.existsSync(filePath)) die(`no such file: ${fileArg}`);
const fileSize = fs.statSync(filePath).size;
const originalVersion = readHeaderVersion(filePath);
let openPath = filePath;
/** pi16 appends "\n" to a file whose last byte is not a newline (and writes a header into an empty file). */
function unterminated(file) {
	if (fileSize === 0) return true;
	const fd = fs.openSync(file, "r");
	try {
		const buf = Buffer.alloc(1);
		fs.readSync(fd, buf, 0, 1, fileSize - 1);
		return buf[0] !== 0x0a;
	} finally {
		fs.closeSync(fd);
	}
}
if (
	!opts["no-copy"] &&
	(originalVersion === null ||
		originalVersion < b.CURRENT_SESSION_VERSION ||
		(b.writesUnterminated && unterminated(filePath)))
) {
	// pi's SessionManager.open rewrites a migrated file in place, and pi 0.73.1 writes a fresh
	// header over an empty or non-session file (originalVersion null); never touch the caller's file.
	const dir = path.join(scratch, "copy");
	fs.mkdirSync(dir, { recursive: true });
	openPath = path.join(dir, path.basename(filePath));
	fs.copyFileSync(filePath, openPath);
}

let mgr, header, entries, indexOf;
async function openSession() {
	resetIds(); // module init may have drawn uuids; migration ids start at 00000001 for both impls
	try {
		mgr = await b.open(openPath);
	} catch (err) {
		// pi16 throws for a non-empty file that is not a session (the others return no header)
		if (impl === "pi16") die(`not a session file (${err.message}): ${fileArg}`, 3);
		throw err;
	}
	header = mgr.getHeader();
	if (!header) die(`not a session file (no valid header): ${fileArg}`, 3);
	entries = mgr.getEntries();
	indexOf = new Map();
	for (let i = 0; i < entries.length; i++) indexOf.set(entries[i].id, i);
}
await openSession();
t = mark("open", t);

class OracleError extends Error {
	constructor(msg, code) {
		super(msg);
		this.code = code;
	}
}
/**
 * omp 18's per-turn stale pass, called as `SessionMaintenance.#pruneStaleToolResults` calls it
 * (session-maintenance.ts): supersedeKey readToolSupersedeKey (compaction.supersedeReads),
 * pruneUseless (compaction.dropUseless), DEFAULT_PRUNE_CONFIG.protectedTools (the agent adds its
 * plan-file matcher, which has no file here), keepBoundaryId = the latest compaction's
 * firstKeptEntryId, idleFlushMs 90 min, suffixTokenLimit 0 for prefix-bound models (else the
 * function's default 8000). `--now MS` is the function's clock override (default Date.now()).
 * With --then-overflow, the threshold path's pruneToolOutputs runs next on the mutated branch with
 * the agent's config (cacheWarmSuffixTokens 8000, 0 when prefix-bound).
 */
function pruneStale(mgr, leafId, o, base, indexOf) {
	const comp = b.comp;
	const branchEntries = mgr.getBranch(leafId);
	const keepBoundaryId = b.getLatestCompactionEntry(branchEntries)?.firstKeptEntryId;
	const prefixBound = !!o["prefix-bound"];
	const supersedeReads = !o["no-supersede"];
	const dropUseless = !o["no-useless"];
	const now = o.now === undefined ? Date.now() : num(o.now);
	const snapshot = () => {
		const rows = [];
		for (let i = 0; i < branchEntries.length; i++) {
			const e = branchEntries[i];
			if (e.type === "message" && e.message.role === "toolResult")
				rows.push({ e, i, before: e.message.prunedAt, tokens: b.countMessage(e.message) });
		}
		return rows;
	};
	const changed = rows => {
		const out = [];
		for (const r of rows) {
			const m = r.e.message;
			if (m.prunedAt !== undefined && m.prunedAt !== r.before)
				out.push({
					entryId: r.e.id,
					entryIndex: indexOf.get(r.e.id),
					pathIndex: r.i,
					toolName: m.toolName,
					toolCallId: m.toolCallId,
					tokens: r.tokens,
					tokensAfter: b.countMessage(m),
					notice: m.content?.[0]?.text,
				});
		}
		return out;
	};
	const config = {
		supersedeKey: supersedeReads ? comp.readToolSupersedeKey : undefined,
		pruneUseless: dropUseless,
		protectedTools: [...comp.DEFAULT_PRUNE_CONFIG.protectedTools],
		keepBoundaryId,
		idleFlushMs: 90 * 60_000,
		suffixTokenLimit: prefixBound ? 0 : undefined,
		now,
	};
	let lastMessageTimestamp = null;
	for (let i = branchEntries.length - 1; i >= 0; i--) {
		if (branchEntries[i].type !== "message") continue;
		const ts = branchEntries[i].message.timestamp;
		lastMessageTimestamp = typeof ts === "number" ? ts : null;
		break;
	}
	const rows = snapshot();
	const out = {
		...base,
		pass: "stale",
		config: {
			supersedeReads,
			dropUseless,
			protectedTools: config.protectedTools.map(p => (typeof p === "string" ? p : p.name || "fn")),
			keepBoundaryId: keepBoundaryId ?? null,
			idleFlushMs: config.idleFlushMs,
			suffixTokenLimit: prefixBound ? 0 : 8000,
			now,
		},
		pathLength: branchEntries.length,
		lastMessageTimestamp,
		toolResultCount: rows.length,
	};
	if (!supersedeReads && !dropUseless) {
		// The agent returns before calling the function.
		out.result = { prunedCount: 0, tokensSaved: 0 };
		out.pruned = [];
	} else {
		out.result = comp.pruneSupersededToolResults(branchEntries, b.tokenizer, config);
		out.pruned = changed(rows);
	}
	if (o["then-overflow"]) {
		const rows2 = snapshot();
		const overflowConfig = {
			...comp.DEFAULT_PRUNE_CONFIG,
			protectedTools: [...comp.DEFAULT_PRUNE_CONFIG.protectedTools],
			pruneUseless: dropUseless,
			keepBoundaryId,
			cacheWarmSuffixTokens: prefixBound ? 0 : 8000,
		};
		const result = comp.pruneToolOutputs(branchEntries, b.tokenizer, overflowConfig);
		out.overflow = {
			config: {
				protectTokens: overflowConfig.protectTokens,
				minimumSavings: overflowConfig.minimumSavings,
				pruneUseless: overflowConfig.pruneUseless,
				keepBoundaryId: keepBoundaryId ?? null,
				cacheWarmSuffixTokens: overflowConfig.cacheWarmSuffixTokens,
			},
			result,
			pruned: changed(rows2),
		};
	}
	return out;
}

/**
 * omp 18's post-run threshold path, rebuilt step by step from the functions the agent calls
 * (SessionMaintenance.checkCompaction, session-maintenance.ts; the method itself needs a live
 * session): A = the last assistant entry on the branch; stale = A.timestamp < the latest
 * compaction's time; isContextOverflow / isPayloadRejection of A; the stale pass and then overflow
 * pruning with the agent's configs (mutating the branch as the agent does); the stored estimate =
 * countMessages(buildSessionContext(...).messages, {excludeEncryptedReasoning}) — without the
 * system prompt and tools the agent adds; usage = calculateContextTokens(A.usage), 0 when stale;
 * tokens = compactionContextTokens(usage, stored); resolveThresholdTokens / shouldCompact with the
 * default settings (reserveTokens unset unless --reserve).
 */
async function autoInputs(mgr, leafId, o, base) {
	const comp = b.comp;
	const AIError = await b.load("@oh-my-pi/pi-ai/error");
	const window = num(o.window);
	if (window === undefined) fail("auto needs --window N");
	const branchEntries = mgr.getBranch(leafId);
	let a;
	for (let i = branchEntries.length - 1; i >= 0; i--) {
		const e = branchEntries[i];
		if (e.type === "message" && e.message.role === "assistant") {
			a = e;
			break;
		}
	}
	const out = { ...base, window };
	if (!a) return { ...out, assistantId: null };
	const m = a.message;
	const compaction = b.getLatestCompactionEntry(branchEntries);
	const stale = compaction != null && m.timestamp < new Date(compaction.timestamp).getTime();
	const prefixBound = !!o["prefix-bound"];
	const keepBoundaryId = compaction?.firstKeptEntryId;
	const now = o.now === undefined ? Date.now() : num(o.now);
	const staleResult = comp.pruneSupersededToolResults(branchEntries, b.tokenizer, {
		supersedeKey: comp.readToolSupersedeKey,
		pruneUseless: true,
		protectedTools: [...comp.DEFAULT_PRUNE_CONFIG.protectedTools],
		keepBoundaryId,
		idleFlushMs: 90 * 60_000,
		suffixTokenLimit: prefixBound ? 0 : undefined,
		now,
	});
	const overflowResult = comp.pruneToolOutputs(branchEntries, b.tokenizer, {
		...comp.DEFAULT_PRUNE_CONFIG,
		protectedTools: [...comp.DEFAULT_PRUNE_CONFIG.protectedTools],
		pruneUseless: true,
		keepBoundaryId,
		cacheWarmSuffixTokens: prefixBound ? 0 : 8000,
	});
	const messages = b.buildContext(mgr, leafId).messages;
	const stored = b.tokenizer.countMessages(messages, { excludeEncryptedReasoning: true });
	const usage = stale ? 0 : comp.calculateContextTokens(m.usage);
	const tokens = comp.compactionContextTokens(usage, stored);
	const settings = { ...b.defaultCompactionSettings };
	if (o.reserve !== undefined) settings.reserveTokens = num(o.reserve);
	return {
		...out,
		assistantId: a.id,
		stopReason: m.stopReason,
		stale,
		isContextOverflow: AIError.isContextOverflow(m, window),
		isPayloadRejection: AIError.isPayloadRejection(m),
		stalePass: staleResult,
		overflowPruning: overflowResult,
		storedEstimate: stored,
		usageTokens: usage,
		contextTokens: tokens,
		thresholdTokens: comp.resolveThresholdTokens(window, settings),
		shouldCompact: comp.shouldCompact(tokens, window, settings),
	};
}

function fail(msg, code = 2) {
	throw new OracleError(msg, code);
}

/**
 * A summary model the agent knows nothing about beyond its id (--model) and window (--window,
 * default 200000): no native tokenizer, no reasoning, no provider-native compaction. Its
 * completeImpl records every request (system prompt, prompt text, maxTokens) in `calls` and
 * answers `<answer N>`; nothing is sent.
 */
function standInModel(o) {
	const model = {
		id: String(o.model), name: String(o.model), api: "openai-completions", provider: "oracle-stand-in",
		baseUrl: "http://127.0.0.1:9", reasoning: false, input: ["text"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: o.window !== undefined ? num(o.window) : 200000, maxTokens: 32000,
	};
	const calls = [];
	const completeImpl = async (m, ctx, opts) => {
		const text = ctx.messages.map(x => x.content.map(c => c.text).join("")).join("");
		calls.push({ systemPrompt: ctx.systemPrompt.join("\n"), prompt: text, maxTokens: opts.maxTokens });
		return {
			role: "assistant", content: [{ type: "text", text: `<answer ${calls.length}>` }],
			api: m.api, provider: m.provider, model: m.id,
			usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
			stopReason: "stop", timestamp: 0,
		};
	};
	return { model, calls, completeImpl };
}

/** Runs one command on the opened session and returns its JSON document. */
async function runCommand(command, o) {
	if (!COMMANDS.includes(command) || command === "batch") fail(`unknown command ${command}`);
	if (command === "prune" && !isOmp) fail("prune is only implemented by oh-my-pi (--impl omp13 or omp18)");
	const leafOpt = o.leaf;
	if (leafOpt && !indexOf.has(leafOpt)) fail(`unknown --leaf ${leafOpt}`, 3);
	const leafId = leafOpt ?? mgr.getLeafId();

	const base = {
		oracle: b.oracle,
		command,
		file: { name: path.basename(filePath), bytes: fileSize },
		header: { id: header.id, version: header.version, originalVersion, cwd: header.cwd },
		migrated: originalVersion !== null && originalVersion < b.CURRENT_SESSION_VERSION,
		entryCount: entries.length,
		leafId,
		leafIndex: leafId ? (indexOf.get(leafId) ?? null) : null,
	};

	if (command === "info") {
		const types = {};
		const roles = {};
		const children = new Map();
		for (const e of entries) {
			types[e.type] = (types[e.type] ?? 0) + 1;
			if (e.type === "message") roles[e.message.role] = (roles[e.message.role] ?? 0) + 1;
			if (e.parentId != null) children.set(e.parentId, (children.get(e.parentId) ?? 0) + 1);
		}
		const leaves = entries.filter(e => !children.has(e.id)).map(e => e.id);
		const branchPoints = entries.filter(e => (children.get(e.id) ?? 0) > 1).map(e => ({ id: e.id, children: children.get(e.id) }));
		const roots = entries.filter(e => e.parentId == null || !indexOf.has(e.parentId)).map(e => e.id);
		const labels = [];
		for (const e of entries) {
			const l = b.getLabel(mgr, e.id);
			if (l !== undefined) labels.push({ id: e.id, label: l });
		}
		const branch = mgr.getBranch(leafId);
		return ({ ...base, types, roles, roots, leaves, branchPoints, labels, leafPathLength: branch.length });
	} else if (command === "context") {
		const ctx = b.buildContext(mgr, leafId);
		t = mark("buildSessionContext", t);
		const llm = b.convertToLlm(ctx.messages);
		t = mark("convertToLlm", t);
		const branchEntries = mgr.getBranch(leafId);
		const find = ctx.projection ? projectionSourceFinder(ctx.projection) : makeSourceFinder(branchEntries);
		const messages = describeMessages(b, ctx.messages, find, indexOf);
		const llmMessages = describeMessages(b, llm, null, indexOf);
		const extra = ctx.projection ? pi16ContextFacts(ctx, branchEntries, messages, llmMessages, llm, o.full) : {};
		const out = {
			...base,
			...b.contextMeta(ctx),
			pathLength: branchEntries.length,
			messageCount: ctx.messages.length,
			messageTokens: sum(messages, m => m.tokens),
			llmCount: llm.length,
			llmTokens: sum(llmMessages, m => m.tokens),
			estimateContextTokens: b.estimateContextTokens(ctx.messages),
			...extra,
			messages,
			llm: llmMessages,
		};
		if (o.full) {
			out.fullMessages = ctx.messages;
			out.fullLlm = llm;
		}
		return (out);
	} else if (command === "transcript") {
		if (!isOmp18) fail("transcript is omp 18's summarizer input (--impl omp18 or omp183)");
		const { preferredDialect } = await b.load("@oh-my-pi/pi-catalog/identity");
		const ctx = b.buildContext(mgr, leafId);
		const llm = b.convertToLlm(ctx.messages);
		const transcripts = {};
		for (const d of ["anthropic", "glm", "gemini", "gemma", "kimi", "qwen3", "deepseek", "minimax", "harmony", "xml"])
			transcripts[d] = b.comp.serializeConversationForSummary(llm, d);
		const dialects = {};
		for (const id of o.models ? String(o.models).split(",") : []) dialects[id] = preferredDialect(id);
		return { ...base, llmCount: llm.length, dialects, transcripts };
	} else if (command === "summarize") {
		if (!isOmp18) fail("summarize is omp 18's compaction requests (--impl omp18 or omp183)");
		if (!o.model) fail("summarize needs --model ID");
		const settings = { ...b.defaultCompactionSettings, remoteEnabled: false };
		if (o["keep-recent"] !== undefined) settings.keepRecentTokens = num(o["keep-recent"]);
		if (o.reserve !== undefined) settings.reserveTokens = num(o.reserve);
		const prep = b.prepareCompaction(mgr.getBranch(leafId), settings);
		if (!prep) return { ...base, prepared: null, calls: [] };
		const { model, calls, completeImpl } = standInModel(o);
		const result = await b.comp.compact(prep, model, "no-key", undefined, undefined, {
			convertToLlm: b.convertToLlm, completeImpl, oneshotRetry: false,
		});
		return {
			...base,
			model: model.id,
			firstKeptEntryId: prep.firstKeptEntryId,
			isSplitTurn: prep.isSplitTurn,
			calls,
			summary: result.summary,
			shortSummary: result.shortSummary,
		};
	} else if (command === "serialize") {
		const ctx = b.buildContext(mgr, leafId);
		const llm = b.convertToLlm(ctx.messages);
		const text = b.serializeConversation(llm);
		if (o.raw) {
			return { __raw: text };
		} else {
			return ({
				...base,
				llmCount: llm.length,
				length: text.length,
				sha256: createHash("sha256").update(text, "utf8").digest("hex"),
				text,
			});
		}
	} else if (command === "cut") {
		const pathEntries = mgr.getBranch(leafId);
		const settings = { ...b.defaultCompactionSettings };
		if (o["keep-recent"] !== undefined) settings.keepRecentTokens = num(o["keep-recent"]);
		if (o.reserve !== undefined) settings.reserveTokens = num(o.reserve);
		else if (impl === "pi") settings.reserveTokens = settings.reserveTokens ?? 16384;
		const prep = b.prepareCompaction(pathEntries, settings);
		t = mark("prepareCompaction", t);
		const out = { ...base, settings, pathLength: pathEntries.length };
		if (b.projectedContextTokens) out.projectedContextTokens = b.projectedContextTokens(pathEntries);
		if (!prep) {
			out.prepared = null;
			const last = pathEntries[pathEntries.length - 1];
			out.reason =
				last && last.type === "compaction"
					? "last entry on path is a compaction"
					: "prepareCompaction returned undefined (nothing to summarize / needs migration)";
		} else {
			const find = makeSourceFinder(pathEntries);
			const pathIndex = new Map(pathEntries.map((e, i) => [e.id, i]));
			const ids = ms => ms.map(m => find(m)?.id ?? null);
			const toSum = describeMessages(b, prep.messagesToSummarize, find, indexOf);
			const prefix = describeMessages(b, prep.turnPrefixMessages, find, indexOf);
			out.prepared = {
				firstKeptEntryId: prep.firstKeptEntryId,
				firstKeptEntryIndex: indexOf.get(prep.firstKeptEntryId) ?? null,
				firstKeptPathIndex: pathIndex.get(prep.firstKeptEntryId) ?? null,
				isSplitTurn: prep.isSplitTurn,
				tokensBefore: prep.tokensBefore,
				previousSummaryChars: prep.previousSummary === undefined ? null : prep.previousSummary.length,
				messagesToSummarizeIds: ids(prep.messagesToSummarize),
				turnPrefixIds: ids(prep.turnPrefixMessages),
				turnStartEntryId: prep.isSplitTurn && prep.turnPrefixMessages.length ? (find(prep.turnPrefixMessages[0])?.id ?? null) : null,
				messagesToSummarizeTokens: sum(toSum, m => m.tokens),
				turnPrefixTokens: sum(prefix, m => m.tokens),
				messagesToSummarize: toSum,
				turnPrefix: prefix,
				fileOps: fileOpsJson(b, prep.fileOps),
			};
			if (prep.recentMessages) out.prepared.recentMessagesIds = ids(prep.recentMessages);
			if (o.full) {
				// what compact() would send: serializeConversation(convertToLlm(...))
				out.prepared.serialized = b.serializeConversation(b.convertToLlm(prep.messagesToSummarize));
				out.prepared.turnPrefixSerialized = b.serializeConversation(b.convertToLlm(prep.turnPrefixMessages));
			}
		}
		if (b.rawFindCutPoint) {
			const r = b.rawFindCutPoint(pathEntries, settings);
			const list = r.__entries ?? pathEntries; // pi16: indices into the projected entry list
			delete r.__entries;
			out.findCutPoint = {
				...r,
				firstKeptEntryId: list[r.firstKeptEntryIndex]?.id ?? null,
				turnStartEntryId: r.turnStartIndex >= 0 ? list[r.turnStartIndex].id : null,
			};
			if (r.indexSpace)
				out.findCutPoint.matchesPrepared = prep
					? prep.firstKeptEntryId === out.findCutPoint.firstKeptEntryId && prep.isSplitTurn === r.isSplitTurn
					: null;
		}
		if (o.window !== undefined) {
			const w = num(o.window);
			const tokens = prep ? prep.tokensBefore : null;
			out.window = w;
			out.shouldCompact = tokens === null ? null : b.shouldCompact(tokens, w, settings);
			if (b.thresholdTokens) out.thresholdTokens = b.thresholdTokens(w, settings);
			if (out.projectedContextTokens !== undefined)
				out.shouldCompactProjected = b.shouldCompact(out.projectedContextTokens, w, settings);
		}
		return (out);
	} else if (command === "auto") {
		if (!isOmp18) fail("auto is implemented for oh-my-pi 18 only (--impl omp18 or omp183)");
		return autoInputs(mgr, leafId, o, base);
	} else if (command === "prune" && o.stale) {
		if (!isOmp18) fail("prune --stale is oh-my-pi 18's per-turn pass (--impl omp18 or omp183)");
		return pruneStale(mgr, leafId, o, base, indexOf);
	} else if (command === "prune") {
		const branchEntries = mgr.getBranch(leafId);
		let keepBoundaryId;
		const config = { ...b.DEFAULT_PRUNE_CONFIG, protectedTools: [...b.DEFAULT_PRUNE_CONFIG.protectedTools] };
		if (isOmp18) {
			// 18.x: the agent passes the latest compaction's firstKeptEntryId as keepBoundaryId.
			keepBoundaryId = b.getLatestCompactionEntry(branchEntries)?.firstKeptEntryId;
			config.keepBoundaryId = keepBoundaryId;
		} else {
			for (const k of ["cache-warm", "supersede", "no-useless"])
				if (o[k] !== undefined) fail(`--${k} does not exist in omp 13.19 (use --impl omp18)`);
		}
		if (o.protect !== undefined) config.protectTokens = num(o.protect);
		if (o["min-savings"] !== undefined) config.minimumSavings = num(o["min-savings"]);
		if (o["cache-warm"] !== undefined) config.cacheWarmSuffixTokens = num(o["cache-warm"]);
		if (o.supersede) config.supersedeKey = b.comp.readToolSupersedeKey;
		if (o["no-useless"]) config.pruneUseless = false;
		const toolResults = [];
		for (let i = 0; i < branchEntries.length; i++) {
			const e = branchEntries[i];
			if (e.type === "message" && e.message.role === "toolResult")
				toolResults.push({ e, i, before: e.message.prunedAt, tokens: b.countMessage(e.message) });
		}
		const result = b.pruneToolOutputs(branchEntries, config);
		t = mark("pruneToolOutputs", t);
		const pruned = [];
		for (const r of toolResults) {
			const m = r.e.message;
			if (m.prunedAt !== undefined && m.prunedAt !== r.before) {
				pruned.push({
					entryId: r.e.id,
					entryIndex: indexOf.get(r.e.id),
					pathIndex: r.i,
					toolName: m.toolName,
					toolCallId: m.toolCallId,
					tokens: r.tokens,
					notice: m.content?.[0]?.text,
				});
			}
		}
		const out = {
			...base,
			config: {
				protectTokens: config.protectTokens,
				minimumSavings: config.minimumSavings,
				protectedTools: config.protectedTools.map(p => (typeof p === "string" ? p : p.name || "fn")),
				...(isOmp18
					? {
							pruneUseless: config.pruneUseless,
							supersede: !!config.supersedeKey,
							keepBoundaryId: keepBoundaryId ?? null,
							cacheWarmSuffixTokens: config.cacheWarmSuffixTokens ?? null,
						}
					: {}),
			},
			pathLength: branchEntries.length,
			toolResultCount: toolResults.length,
			toolResultTokens: sum(toolResults, r => r.tokens),
			result,
			pruned,
		};
		if (result.prunedCount === 0 && config.minimumSavings > 0) {
			// Nothing mutated: show what would be pruned if the minimum-savings gate were 0.
			const r2 = b.pruneToolOutputs(branchEntries, { ...config, minimumSavings: 0 });
			const below = [];
			for (const r of toolResults) {
				const m = r.e.message;
				if (m.prunedAt !== undefined && m.prunedAt !== r.before)
					below.push({ entryId: r.e.id, entryIndex: indexOf.get(r.e.id), tokens: r.tokens, notice: m.content?.[0]?.text });
			}
			out.belowMinimumSavings = { result: r2, candidates: below };
		}
		return (out);
	} else if (command === "branch") {
		const to = o.to;
		if (!to) fail("branch needs --to TARGET");
		if (!indexOf.has(to)) fail(`unknown --to ${to}`, 3);
		const from = o.from ?? leafId;
		if (from && !indexOf.has(from)) fail(`unknown --from ${from}`, 3);
		const budget = num(o.budget, 0);
		const collected = b.collectEntriesForBranchSummary(mgr, from, to);
		const prep = b.prepareBranchEntries(collected.entries, budget);
		t = mark("branch", t);
		const find = makeSourceFinder(collected.entries);
		const msgs = describeMessages(b, prep.messages, find, indexOf);
		let summarized;
		if (o.model !== undefined) {
			// omp18: generateBranchSummary itself, with a stand-in model (the budget is then its
			// window minus --reserve, default 16384, as the agent computes it).
			if (!isOmp18) fail("branch --model is omp 18's branch summary (--impl omp18 or omp183)");
			const { model, calls, completeImpl } = standInModel(o);
			const r = await b.comp.generateBranchSummary(collected.entries, {
				model, apiKey: "no-key", signal: new AbortController().signal,
				reserveTokens: o.reserve !== undefined ? num(o.reserve) : 16384,
				convertToLlm: b.convertToLlm, completeImpl,
			});
			summarized = { model: model.id, window: model.contextWindow, calls, summary: r.summary ?? null };
		}
		return ({
			...(summarized ? { summarized } : {}),
			...base,
			from,
			to,
			budget,
			commonAncestorId: collected.commonAncestorId,
			entryIds: collected.entries.map(e => e.id),
			entryTypes: collected.entries.map(e => (e.type === "message" ? `message:${e.message.role}` : e.type)),
			selectedCount: prep.messages.length,
			totalTokens: prep.totalTokens,
			selectedIds: msgs.map(m => m.entryId),
			messages: msgs,
			fileOps: fileOpsJson(b, prep.fileOps),
		});
	} else if (command === "tokens") {
		const rows = [];
		let total = 0;
		const byType = {};
		for (let i = 0; i < entries.length; i++) {
			const e = entries[i];
			if (b.entryMessages) {
				// pi16: all messages the entry projects to (compaction: systemMessage checkpoint + summary)
				const ms = b.entryMessages(e);
				const tokens = ms.length ? sum(ms, m => b.countMessage(m)) : null;
				const main = ms.find(m => m.role !== "system") ?? ms[0];
				if (tokens !== null) {
					total += tokens;
					const k = e.type === "message" ? `message:${e.message.role}` : e.type;
					byType[k] = (byType[k] ?? 0) + tokens;
				}
				if (!o.summary) {
					const row = { i, id: e.id, type: e.type, role: e.type === "message" ? e.message.role : (main?.role ?? null), tokens };
					if (e.type === "compaction" && ms.length > 1) row.systemTokens = b.countMessage(ms[0]);
					rows.push(row);
				}
				continue;
			}
			const m = b.entryMessage(e);
			const tokens = m ? b.countMessage(m) : null;
			if (tokens !== null) {
				total += tokens;
				const k = e.type === "message" ? `message:${e.message.role}` : e.type;
				byType[k] = (byType[k] ?? 0) + tokens;
			}
			if (!o.summary) rows.push({ i, id: e.id, type: e.type, role: e.type === "message" ? e.message.role : (m?.role ?? null), tokens });
		}
		t = mark("estimate", t);
		const out = { ...base, totalTokens: total, tokensByType: byType };
		if (!o.summary) out.entries = rows;
		return (out);
	} else if (command === "bench") {
		const tree = b.getTree(mgr);
		t = mark("getTree", t);
		const ctx = b.buildContext(mgr, leafId);
		t = mark("buildSessionContext", t);
		const llm = b.convertToLlm(ctx.messages);
		t = mark("convertToLlm", t);
		let total = 0;
		let counted = 0;
		for (const e of entries) {
			if (b.entryMessages) {
				const ms = b.entryMessages(e);
				if (ms.length) {
					for (const m of ms) total += b.countMessage(m);
					counted++;
				}
				continue;
			}
			const m = b.entryMessage(e);
			if (m) {
				total += b.countMessage(m);
				counted++;
			}
		}
		t = mark("estimateAllEntries", t);
		const ctxTokens = sum(ctx.messages, m => b.countMessage(m));
		t = mark("estimateContext", t);
		timings.total = Math.round((performance.now() - T0) * 100) / 100;
		return ({
			...base,
			roots: tree.length,
			contextMessages: ctx.messages.length,
			llmMessages: llm.length,
			contextTokens: ctxTokens,
			entriesEstimated: counted,
			allEntriesTokens: total,
			timingsMs: timings,
			peakRssMiB: (() => { try { return Math.round(process.resourceUsage().maxRSS / 1024); } catch { return Math.round(process.memoryUsage().rss / 1048576); } })(),
		});
	}
}

function output(res) {
	if (res && res.__raw !== undefined) writeOut(res.__raw);
	else emit(res);
}

if (command === "batch") {
	// One JSON array of arguments per input line (e.g. ["cut","--keep-recent","8000"]); one JSON
	// document per output line, in order ({"error": ...} for a job that failed). `prune` and `auto` mutate
	// the loaded entries, so the session is opened again after it.
	const src = opts.jobs ? fs.readFileSync(opts.jobs, "utf8") : fs.readFileSync(0, "utf8");
	for (const line of src.split("\n")) {
		if (!line.trim()) continue;
		let jobArgs;
		try {
			jobArgs = JSON.parse(line);
			if (!Array.isArray(jobArgs) || !jobArgs.length) throw new Error("not a non-empty array");
		} catch (err) {
			writeOut(JSON.stringify({ error: `bad job line: ${err.message}`, job: line }) + "\n");
			continue;
		}
		const { opts: jo, pos: jp } = parseArgs(jobArgs.map(String));
		const line1 = obj => writeOut(JSON.stringify(obj) + "\n");
		try {
			const res = await runCommand(jp[0], jo);
			line1(res && res.__raw !== undefined ? { raw: res.__raw } : res);
		} catch (err) {
			if (!(err instanceof OracleError)) throw err;
			line1({ error: err.message, code: err.code, job: jobArgs });
		}
		if (jp[0] === "prune" || jp[0] === "auto") await openSession();
	}
} else {
	try {
		output(await runCommand(command, opts));
	} catch (err) {
		if (err instanceof OracleError) die(err.message, err.code);
		throw err;
	}
}
await Promise.all(pendingWrites);
process.exit(0);
