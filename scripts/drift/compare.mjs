#!/usr/bin/env node
// The comparison behind scripts/agent-drift.sh: the watched modules of one agent between two
// package trees (folders laid out like node_modules: TREE/<package name>/package.json).
//
//   node scripts/drift/compare.mjs report --agent NAME --from-tree A --to-tree B
//        [--out DIR] [--newer "V1 V2"] [--note TEXT]… [--head N]
//     prints the report; exit 0 nothing watched changed, 1 something did, 2 an error.
//   node scripts/drift/compare.mjs deps --agent NAME --tree T [--lock FILE]
//     prints `name@version` of the agent's watched dependencies as the main package in T
//     asks for them (or as the lock file pins them).
//   node scripts/drift/compare.mjs info --agent NAME
//     prints `package<TAB>pin file<TAB>below` of the agent.
//   node scripts/drift/compare.mjs newer --from V [--below V] < versions.json
//     prints the released versions (a JSON array on stdin) after V and below `--below`,
//     oldest first, space-separated (pre-releases left out).

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { Bundle, locate, moduleFeatures } from "./bundle.mjs";
import { nameModule, normalizeStatements } from "./normalize.mjs";
import { features, sourceCode } from "./statements.mjs";
import { literalValue, tokenize } from "./tokens.mjs";
import { agent as agentNamed } from "./watch.mjs";

class UsageError extends Error {}

// Below this similarity a module is not taken as found in a bundle.
const MIN_LOCATE_SCORE = 0.3;
// Below this similarity a prompt text is not taken as a rewritten version of the pinned one.
const MIN_TEXT_SIMILARITY = 0.5;

function parseArgs(argv) {
	const args = { notes: [], head: 12 };
	const [cmd, ...rest] = argv;
	args.cmd = cmd;
	for (let i = 0; i < rest.length; i++) {
		const a = rest[i];
		const value = () => {
			if (i + 1 >= rest.length) throw new UsageError(`${a} needs a value`);
			return rest[++i];
		};
		if (a === "--agent") args.agent = value();
		else if (a === "--from-tree") args.fromTree = value();
		else if (a === "--to-tree") args.toTree = value();
		else if (a === "--tree") args.tree = value();
		else if (a === "--lock") args.lock = value();
		else if (a === "--lock-prefix") args.lockPrefix = value();
		else if (a === "--out") args.out = value();
		else if (a === "--newer") args.newer = value();
		else if (a === "--note") args.notes.push(value());
		else if (a === "--head") args.head = Number(value());
		else if (a === "--from") args.from = value();
		else if (a === "--from-label") args.fromLabel = value();
		else if (a === "--to-label") args.toLabel = value();
		else if (a === "--below") args.below = value();
		else throw new UsageError(`unknown argument ${a}`);
	}
	return args;
}

/** The folder of package `name` in `tree`, as Node would resolve it from `mainDir`. */
function packageDir(tree, name, mainDir) {
	for (const dir of [mainDir && path.join(mainDir, "node_modules", name), path.join(tree, name)]) {
		if (dir && fs.existsSync(path.join(dir, "package.json"))) return dir;
	}
	return null;
}

function readJson(file) {
	try {
		return JSON.parse(fs.readFileSync(file, "utf8"));
	} catch (e) {
		throw new Error(`cannot read ${file}: ${e.message}`);
	}
}

/** One side of the comparison: the agent's packages in a tree. */
class Side {
	constructor(label, tree, agent) {
		if (!fs.existsSync(tree)) throw new UsageError(`${label}: no folder ${tree}`);
		this.label = label;
		this.tree = tree;
		this.mainDir = packageDir(tree, agent.package, null);
		if (!this.mainDir) throw new UsageError(`${label}: ${agent.package} is not in ${tree} (expected ${path.join(tree, agent.package, "package.json")})`);
		this.main = readJson(path.join(this.mainDir, "package.json"));
		this.version = this.main.version;
		this.dirs = new Map([[agent.package, this.mainDir]]);
		for (const dep of agent.deps) this.dirs.set(dep, packageDir(tree, dep, this.mainDir));
		this.bundleFile = agent.bundle && this.dirs.get(agent.bundle.pkg) ? path.join(this.dirs.get(agent.bundle.pkg), agent.bundle.path) : null;
		if (this.bundleFile && !fs.existsSync(this.bundleFile)) this.bundleFile = null;
		this._bundle = null;
	}

	/** The version of `pkg` here, or null when the tree does not have it. */
	versionOf(pkg) {
		const dir = this.dirs.get(pkg);
		return dir ? readJson(path.join(dir, "package.json")).version : null;
	}

	/** The files a watched path names here (relative paths; `*` expanded). */
	files(pkg, pattern) {
		const dir = this.dirs.get(pkg);
		if (!dir) return [];
		if (!pattern.includes("*")) return fs.existsSync(path.join(dir, pattern)) ? [pattern] : [];
		const folder = path.posix.dirname(pattern);
		const re = new RegExp(`^${path.posix.basename(pattern).replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}$`);
		let names;
		try {
			names = fs.readdirSync(path.join(dir, folder));
		} catch {
			return [];
		}
		return names.filter(n => re.test(n) && !n.endsWith(".d.ts")).sort().map(n => `${folder}/${n}`);
	}

	read(pkg, rel) {
		return fs.readFileSync(path.join(this.dirs.get(pkg), rel), "utf8");
	}

	bundle() {
		if (!this._bundle && this.bundleFile) {
			try {
				this._bundle = new Bundle(fs.readFileSync(this.bundleFile, "utf8"), this.label);
			} catch (e) {
				throw new Error(`${this.bundleFile}: ${e.message}`);
			}
		}
		return this._bundle;
	}
}

/** Unified diff of two texts (`diff -u`), "" when equal. */
function unifiedDiff(a, b, labelA, labelB, scratch) {
	if (a === b) return "";
	const fa = path.join(scratch, "a");
	const fb = path.join(scratch, "b");
	fs.writeFileSync(fa, a.endsWith("\n") ? a : `${a}\n`);
	fs.writeFileSync(fb, b.endsWith("\n") ? b : `${b}\n`);
	const r = spawnSync("diff", ["-u", "--label", labelA, "--label", labelB, fa, fb], { encoding: "utf8", maxBuffer: 1 << 30 });
	if (r.error) throw new Error(`cannot run diff: ${r.error.message}`);
	if (r.status === 0) return "";
	if (r.status !== 1) throw new Error(`diff failed: ${r.stderr}`);
	return r.stdout;
}

function diffstat(diff) {
	let add = 0;
	let del = 0;
	for (const line of diff.split("\n")) {
		if (line.startsWith("+") && !line.startsWith("+++")) add++;
		else if (line.startsWith("-") && !line.startsWith("---")) del++;
	}
	return { add, del };
}

/** Each watched module (glob expanded) with where it is on both sides. */
function watchedFiles(agent, from, to) {
	const out = [];
	const prompts = agent.prompts?.kind === "files" ? agent.prompts.files.map(p => ({ ...p, prompt: true })) : [];
	for (const m of [...agent.modules, ...prompts]) {
		const a = from.files(m.pkg, m.path);
		const b = to.files(m.pkg, m.path);
		const all = [...new Set([...a, ...b])].sort();
		if (all.length === 0) {
			out.push({ ...m, rel: m.path, inFrom: false, inTo: false });
			continue;
		}
		for (const rel of all) {
			const id = m.path.includes("*") ? m.id.replace(/\*[^/]*$/, path.posix.basename(rel)) : m.id;
			out.push({ ...m, id, rel, inFrom: a.includes(rel), inTo: b.includes(rel) });
		}
	}
	return out;
}

// Whether a source module has statements that leave code behind (not only types and
// re-exports).
function hasCode(text) {
	return moduleFeatures(text).size > 0 || /^\s*(export\s+)?(async\s+)?(function|class|const|let|var)\b/m.test(sourceCode(text));
}

/** Compares the agent between two trees; returns the report's data. */
export function compareTrees({ agentName, fromTree, toTree, scratch }) {
	const agent = agentNamed(agentName);
	const from = new Side("pinned", fromTree, agent);
	const to = new Side("newest", toTree, agent);
	const results = [];
	const bundleCache = new Map();
	for (const w of watchedFiles(agent, from, to)) {
		const r = { id: w.id, about: w.about ?? (w.prompt ? "prompt text" : ""), prompt: !!w.prompt, pkg: w.pkg, path: w.rel };
		try {
			compareOne(w, r, from, to, scratch, bundleCache);
		} catch (e) {
			// one unreadable module (a syntax the tokenizer does not know) is reported, not fatal
			Object.assign(r, { status: "unknown", how: `cannot compare: ${e.message}`, diff: undefined });
		}
		results.push(r);
	}
	if (agent.prompts?.kind === "constants") results.push(...compareConstants(agent.prompts, from, to, scratch));
	return { agent: agentName, about: agent.about, package: agent.package, from, to, results };
}

// Fills in `r`: how watched file `w` compares between the two sides.
function compareOne(w, r, from, to, scratch, bundleCache) {
	const code = text => (w.prompt ? text.replace(/\r\n?/g, "\n") : sourceCode(text));
	if (!w.inFrom && !w.inTo) {
		r.status = "absent";
		r.how = from.dirs.get(w.pkg) || to.dirs.get(w.pkg) ? "in neither release" : `${w.pkg} is in neither tree`;
	} else if (!w.inFrom) {
		r.status = "added";
		r.how = `new in ${w.pkg} ${to.versionOf(w.pkg)}`;
	} else if (!w.prompt && !hasCode(from.read(w.pkg, w.rel))) {
		r.status = "absent";
		r.how = "no code of its own (types, re-exports)";
	} else if (w.inTo) {
		const [a, b] = [from.read(w.pkg, w.rel), to.read(w.pkg, w.rel)];
		r.how = "sources";
		r.pinned = code(a);
		r.newest = code(b);
		if (!w.prompt && a !== b) r.rawDiff = unifiedDiff(a, b, `pinned/${w.pkg}/${w.rel}`, `newest/${w.pkg}/${w.rel}`, scratch);
		if (r.rawDiff && r.pinned === r.newest) r.how = "sources (only comments, imports or blank lines differ)";
	} else if (to.dirs.get(w.pkg) || !from.bundleFile || !to.bundleFile) {
		// the package is there but the file is not, or there is no bundle to look in
		r.status = "removed";
		r.how = to.dirs.get(w.pkg) ? `gone from ${w.pkg} ${to.versionOf(w.pkg)}` : `${w.pkg} is not in the newest tree and no bundle ships it`;
	} else if (w.prompt) {
		Object.assign(r, compareTextInBundles(from, to, from.read(w.pkg, w.rel)));
	} else {
		Object.assign(r, compareInBundles(from, to, from.read(w.pkg, w.rel), w.id, bundleCache));
	}
	if (r.pinned !== undefined && r.newest !== undefined) {
		r.diff = unifiedDiff(r.pinned, r.newest, `pinned/${w.pkg}/${w.rel}`, `newest/${w.pkg}/${w.rel}`, scratch);
		r.status = r.diff ? "changed" : "unchanged";
	}
}

// A source module of the pinned release found in the pinned bundle, and the same module
// in the newest bundle, both normalised.
function compareInBundles(from, to, source, id, cache) {
	const b1 = from.bundle();
	const b2 = to.bundle();
	const l1 = locate(b1, moduleFeatures(source));
	if (!l1 || l1.score < MIN_LOCATE_SCORE)
		return { status: "unknown", how: `not found in the pinned bundle (best match ${l1 ? l1.score.toFixed(2) : "none"})` };
	const st1 = b1.code(l1.index);
	const l2 = locate(b2, features(st1.join("\n")));
	if (!l2 || l2.score < MIN_LOCATE_SCORE)
		return { status: "removed", how: `its bundle module has no counterpart in the newest bundle (best match ${l2 ? l2.score.toFixed(2) : "none"})` };
	const key = `${l1.index}:${l2.index}`;
	const how = `in the bundles (${path.relative(from.tree, from.bundleFile)}: module ${l1.index} ↔ ${l2.index}, match ${l1.score.toFixed(2)} / ${l2.score.toFixed(2)})`;
	if (cache.has(key)) return { ...cache.get(key), how: `${how}; the same bundle module as ${cache.get(key).first}`, shared: cache.get(key).first };
	const st2 = b2.code(l2.index);
	const { names1, names2 } = nameModule({ pinned: { bundle: b1, statements: st1 }, newest: { bundle: b2, statements: st2 }, source });
	const helpers = b => ({ lazy: b.helper, exports: b.exportHelper });
	const pinned = normalizeStatements(st1, { names: names1, topLevel: b1.topLevelNames(), helpers: helpers(b1), lazyInits: b1.lazyInitNames(), versions: [from.version] });
	const newest = normalizeStatements(st2, { names: names2, topLevel: b2.topLevelNames(), helpers: helpers(b2), lazyInits: b2.lazyInitNames(), versions: [to.version] });
	const result = { status: pinned === newest ? "unchanged" : "changed", pinned, newest, normalized: true };
	cache.set(key, { ...result, first: id });
	return { ...result, how };
}

// A prompt file of the pinned release looked up among the newest bundle's literals: the
// same text, else the most similar one.
function compareTextInBundles(from, to, text) {
	const value = text;
	if (!from.bundle().literals().has(value)) return { status: "unknown", how: "the pinned text is not inlined verbatim in the pinned bundle" };
	const lits = to.bundle().literals();
	if (lits.has(value)) return { status: "unchanged", how: "text found in the newest bundle" };
	let best = null;
	let score = 0;
	for (const v of lits) {
		if (v.length < value.length / 3 || v.length > value.length * 3) continue;
		const s = wordSimilarity(value, v);
		if (s > score) [best, score] = [v, s];
	}
	if (!best || score < MIN_TEXT_SIMILARITY) return { status: "removed", how: "no such text in the newest bundle", pinned: value };
	return { status: "changed", how: `nearest text in the newest bundle (word similarity ${score.toFixed(2)})`, pinned: value, newest: best };
}

// Dice coefficient of the two texts' word sets.
function wordSimilarity(a, b) {
	const words = t => new Set(t.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []);
	const wa = words(a);
	const wb = words(b);
	if (!wa.size || !wb.size) return 0;
	let common = 0;
	for (const w of wa) if (wb.has(w)) common++;
	return (2 * common) / (wa.size + wb.size);
}

// pi's prompt texts: string constants in its compiled modules.
function compareConstants(spec, from, to, scratch) {
	const find = side => {
		const found = new Map();
		for (const rel of spec.files) {
			if (!side.files(spec.pkg, rel).length) continue;
			for (const [name, value] of constantValues(side.read(spec.pkg, rel))) {
				if (spec.names.includes(name) && !found.has(name)) found.set(name, { value, rel });
			}
		}
		return found;
	};
	const a = find(from);
	const b = find(to);
	return spec.names.map(name => {
		const r = { id: `prompt:${name}`, about: "prompt text", prompt: true, pkg: spec.pkg, path: a.get(name)?.rel ?? b.get(name)?.rel ?? "" };
		if (!a.has(name)) return { ...r, status: "absent", how: "not a string constant in the pinned release" };
		if (!b.has(name)) return { ...r, status: "removed", how: "no string constant of that name in the newest release", pinned: a.get(name).value, diff: unifiedDiff(a.get(name).value, "", `pinned/${name}`, `newest/${name}`, scratch) };
		const diff = unifiedDiff(a.get(name).value, b.get(name).value, `pinned/${name}`, `newest/${name}`, scratch);
		const moved = a.get(name).rel !== b.get(name).rel ? ` (moved to ${b.get(name).rel})` : "";
		return { ...r, status: diff ? "changed" : "unchanged", how: `constant in ${a.get(name).rel}${moved}`, pinned: a.get(name).value, newest: b.get(name).value, diff };
	});
}

/**
 * The string constants of a module: `const NAME = <string or template>` whose template
 * substitutions are other such constants of the module (`${OTHER}`), resolved.
 */
export function constantValues(src) {
	const toks = tokenize(src);
	const raw = new Map();
	for (let i = 1; i + 2 < toks.length; i++) {
		if (toks[i].kind !== "ident" || toks[i - 1].text !== "const" || toks[i + 1].text !== "=") continue;
		const parts = [];
		let k = i + 2;
		if (toks[k].kind === "string" || toks[k].kind === "template") parts.push({ text: literalValue(toks[k]) });
		else if (toks[k].kind === "template-head") {
			for (; k < toks.length; k++) {
				const t = toks[k];
				if (t.kind === "template-head" || t.kind === "template-middle" || t.kind === "template-tail") parts.push({ text: literalValue({ kind: "template", text: `\`${t.text.replace(/^[`}]/, "").replace(/(\$\{|`)$/, "")}\`` }) });
				else if (t.kind === "ident" && /^template-(head|middle)$/.test(toks[k - 1].kind) && /^template-(middle|tail)$/.test(toks[k + 1]?.kind)) parts.push({ ref: t.text });
				else break;
				if (t.kind === "template-tail") break;
			}
		} else continue;
		if (parts.every(p => p.ref !== undefined || p.text !== null)) raw.set(toks[i].text, parts);
	}
	const values = new Map();
	const resolve = (name, depth) => {
		if (values.has(name)) return values.get(name);
		const parts = raw.get(name);
		if (!parts || depth > 8) return null;
		let out = "";
		for (const p of parts) {
			const v = p.ref !== undefined ? resolve(p.ref, depth + 1) : p.text;
			if (v === null) return null;
			out += v;
		}
		values.set(name, out);
		return out;
	};
	for (const name of raw.keys()) resolve(name, 0);
	return values;
}

const FLAGGED = new Set(["changed", "added", "removed", "unknown"]);

/** The report as text, and whether anything watched changed. */
export function renderReport(rep, { head = 12, newer, notes = [], out, labels = ["pinned", "newest"] } = {}) {
	const lines = [];
	const flagged = rep.results.filter(r => FLAGGED.has(r.status));
	const unchanged = rep.results.filter(r => r.status === "unchanged");
	const absent = rep.results.filter(r => r.status === "absent");
	lines.push(`== ${rep.agent}: ${rep.about}`);
	lines.push(`   package  ${rep.package}`);
	lines.push(`   ${labels[0].padEnd(8)} ${rep.from.version}`);
	lines.push(`   ${labels[1].padEnd(8)} ${rep.to.version}${newer ? `   (published after ${rep.from.version}: ${newer})` : ""}`);
	const agent = agentNamed(rep.agent);
	for (const dep of agent.deps) {
		const a = rep.from.versionOf(dep);
		const b = rep.to.versionOf(dep);
		if (!a) continue;
		const wanted = rep.to.main.dependencies?.[dep] ?? "?";
		const where = b ?? `${wanted} wanted, not in the newest tree${rep.to.bundleFile ? ` → compared inside ${path.relative(rep.to.tree, rep.to.bundleFile)}` : ""}`;
		lines.push(`   ${dep.padEnd(27)} ${a ?? "-"} → ${where}`);
	}
	for (const n of [...notes]) lines.push(`   note: ${n}`);
	const width = Math.max(20, ...rep.results.map(r => r.id.length));
	if (flagged.length) {
		lines.push("");
		lines.push(`   CHANGED (${flagged.length}):`);
		for (const r of flagged) {
			const st = r.diff ? diffstat(r.diff) : null;
			const stat = st ? `+${st.add} -${st.del}` : "";
			lines.push(`   ${r.status.padEnd(9)} ${r.id.padEnd(width)} ${stat.padEnd(11)} ${r.about}`);
			lines.push(`             ${r.how}`);
			if (r.diff && !r.shared) {
				// hunk headers and changed lines; the context is in the full diff
				const body = r.diff.split("\n").slice(2).filter(l => /^[-+@]/.test(l));
				for (const l of body.slice(0, head)) lines.push(`             | ${l.length > 160 ? `${l.slice(0, 157)}...` : l}`);
				if (body.length > head) lines.push(`             | … ${body.length - head} more lines${out ? ` in ${path.join(out, rep.agent, fileName(r.id))}.diff` : " (--out DIR writes the whole diff)"}`);
			}
		}
	}
	if (unchanged.length) {
		lines.push("");
		lines.push(`   unchanged (${unchanged.length}):`);
		for (const r of unchanged) lines.push(`             ${r.id.padEnd(width)} ${r.how === "sources" ? "" : r.how}`.trimEnd());
	}
	if (absent.length) {
		lines.push("");
		const reasons = new Map();
		for (const r of absent) reasons.set(r.how, [...(reasons.get(r.how) ?? []), r.id]);
		lines.push(`   not compared (${absent.length}):`);
		for (const [how, ids] of reasons) lines.push(`             ${how}: ${ids.join(", ")}`);
	}
	lines.push("");
	const watched = rep.results.length - absent.length;
	lines.push(
		flagged.length
			? `   result: ${flagged.length} of ${watched} watched modules changed (${rep.from.version} → ${rep.to.version})`
			: `   result: no watched module changed (${rep.from.version} → ${rep.to.version}, ${watched} compared)`,
	);
	return { text: lines.join("\n"), flagged: flagged.length > 0 };
}

/** Orders release versions `x.y.z` numerically. */
function compareVersions(a, b) {
	const pa = a.split(".").map(Number);
	const pb = b.split(".").map(Number);
	for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] ?? 0) - (pb[i] ?? 0);
	return 0;
}

function fileName(id) {
	return id.replace(/[^A-Za-z0-9._-]+/g, "_");
}

/** Writes the full diffs, the normalised bundle modules and report.json under `out/<agent>`. */
function writeOut(rep, out, text) {
	const dir = path.join(out, rep.agent);
	fs.mkdirSync(dir, { recursive: true });
	for (const r of rep.results) {
		if (r.diff) fs.writeFileSync(path.join(dir, `${fileName(r.id)}.diff`), r.diff);
		if (r.rawDiff) fs.writeFileSync(path.join(dir, `${fileName(r.id)}.raw.diff`), r.rawDiff);
		if (r.normalized && r.diff) {
			fs.writeFileSync(path.join(dir, `${fileName(r.id)}.pinned.js`), `${r.pinned}\n`);
			fs.writeFileSync(path.join(dir, `${fileName(r.id)}.newest.js`), `${r.newest}\n`);
		}
	}
	fs.writeFileSync(path.join(dir, "report.txt"), `${text}\n`);
	const json = {
		agent: rep.agent,
		package: rep.package,
		pinned: rep.from.version,
		newest: rep.to.version,
		modules: rep.results.map(r => ({ id: r.id, status: r.status, how: r.how, ...(r.diff ? diffstat(r.diff) : {}) })),
	};
	fs.writeFileSync(path.join(dir, "report.json"), `${JSON.stringify(json, null, 2)}\n`);
}

function deps(args) {
	const agent = agentNamed(args.agent);
	const mainDir = packageDir(args.tree, agent.package, null);
	if (!mainDir) throw new UsageError(`${agent.package} is not in ${args.tree}`);
	const main = readJson(path.join(mainDir, "package.json"));
	const lock = args.lock ? readJson(args.lock) : null;
	for (const dep of agent.deps) {
		const wanted = main.dependencies?.[dep] ?? main.optionalDependencies?.[dep];
		if (!wanted) continue;
		const locked = lock?.packages?.[`${args.lockPrefix ?? "node_modules/"}${dep}`]?.version ?? lock?.packages?.[`node_modules/${dep}`]?.version;
		console.log(`${dep}@${locked ?? wanted}`);
	}
}

function main(argv) {
	const args = parseArgs(argv);
	if (args.cmd === "info") {
		const a = agentNamed(args.agent ?? "");
		console.log([a.package, a.pinFile, a.below ?? ""].join("\t"));
		return 0;
	}
	if (args.cmd === "newer") {
		if (!args.from) throw new UsageError("newer needs --from");
		const all = JSON.parse(fs.readFileSync(0, "utf8"));
		const list = (Array.isArray(all) ? all : [all]).filter(v => /^\d+\.\d+\.\d+$/.test(v));
		const after = list.filter(v => compareVersions(v, args.from) > 0 && (!args.below || compareVersions(v, args.below) < 0));
		console.log(after.sort(compareVersions).join(" "));
		return 0;
	}
	if (args.cmd === "deps") {
		if (!args.agent || !args.tree) throw new UsageError("deps needs --agent and --tree");
		deps(args);
		return 0;
	}
	if (args.cmd !== "report") throw new UsageError(`unknown command ${JSON.stringify(args.cmd ?? "")} (report, deps, info)`);
	if (!args.agent || !args.fromTree || !args.toTree) throw new UsageError("report needs --agent, --from-tree and --to-tree");
	const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "agent-drift-diff-"));
	try {
		const rep = compareTrees({ agentName: args.agent, fromTree: args.fromTree, toTree: args.toTree, scratch });
		const { text, flagged } = renderReport(rep, { head: args.head, newer: args.newer, notes: args.notes, out: args.out, labels: [args.fromLabel ?? "pinned", args.toLabel ?? "newest"] });
		if (args.out) writeOut(rep, args.out, text);
		console.log(text);
		return flagged ? 1 : 0;
	} finally {
		fs.rmSync(scratch, { recursive: true, force: true });
	}
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
	try {
		process.exitCode = main(process.argv.slice(2));
	} catch (e) {
		console.error(`agent-drift: ${e instanceof Error ? e.message : e}`);
		process.exitCode = 2;
	}
}
