// Minified code made comparable across releases: the names a minifier chose are replaced by
// names that do not depend on the build, and the code is laid out one statement per line.
//
// - A top-level function or class of the module gets the name it has in the source: its
//   export name, else the name of the source function it matches, else the name of its
//   counterpart in the other release (see `pairDeclarations`), else `fn@N`.
// - Any other top-level name of the bundle that some module exports gets its export name;
//   the module's own `var`s are `var@N` (paired by position between the releases); the
//   rest (other modules' private helpers and constants) are numbered per statement in order
//   of first use: `@1`, `@2`, … (so a call that switches between two such helpers of other
//   modules goes unseen).
// - Local names (parameters, `let`s, private `#fields`) are numbered per statement too:
//   `a`, `b`, … and `#a`, `#b`, ….
// - Property names, object keys, class members, globals and literals stay as they are.
// - The calls of other modules' initialisers at the start of a lazy module's wrapper are
//   dropped (they list the imports, not behaviour), and so are text imports (prompt files
//   inlined as `var x=\`…\`;var y=()=>{};`), which are compared as prompt texts.

import { varNames } from "./bundle.mjs";
import { features, splitStatements } from "./statements.mjs";
import { IDENT, KEYWORD, PRIVATE, PUNCT, STRING, TEMPLATE, TEMPLATE_HEAD, TEMPLATE_MIDDLE, TEMPLATE_TAIL, tokenize } from "./tokens.mjs";

const GLOBALS = new Set([
	...Object.getOwnPropertyNames(globalThis),
	"Bun", "require", "module", "exports", "__dirname", "__filename", "arguments", "undefined", "NaN", "Infinity",
	"process", "Buffer", "console", "crypto", "navigator", "window", "document", "self", "Deno",
]);

const DECLARATION = /^(?:async\s*)?(?:function\s*\*?\s*|class\s+)([A-Za-z_$][\w$]*)/;

/** The name a statement declares as a function or class, or null. */
export function declaredName(text) {
	return DECLARATION.exec(text)?.[1] ?? null;
}

/**
 * Names for the functions and classes a module's code declares in the pinned release, from
 * its source: `Map(minified → source name)`. Anchors are the declarations whose name is
 * known (`known`: exports) or whose features match one source declaration best, both ways;
 * between two anchors, as many declarations on each side are paired in order (a bundler
 * keeps a module's declaration order).
 */
export function namesFromSource(statements, source, sourceStatements, known = new Map()) {
	const mine = [];
	for (const text of statements) {
		const name = declaredName(text);
		if (name) mine.push({ name, f: features(text) });
	}
	const theirs = [];
	for (const st of sourceStatements) {
		const text = source.slice(st.start, st.end);
		const m = /^(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\s*\*?\s*|(?:abstract\s+)?class\s+)([A-Za-z_$][\w$]*)/.exec(text);
		if (m) theirs.push({ name: m[1], f: features(text) });
	}
	const theirIndex = new Map(theirs.map((t, i) => [t.name, i]));
	const similar = matchBoth(mine, theirs, 0.5);
	// anchors in declaration order, kept only while the source order increases
	const anchors = [];
	mine.forEach((m, i) => {
		const name = known.get(m.name) ?? similar.get(m.name);
		const j = name !== undefined ? theirIndex.get(name) : undefined;
		if (j === undefined) return;
		if (anchors.length && anchors[anchors.length - 1].j >= j) return;
		anchors.push({ i, j });
	});
	const out = new Map();
	for (const a of anchors) out.set(mine[a.i].name, theirs[a.j].name);
	const bounds = [{ i: -1, j: -1 }, ...anchors, { i: mine.length, j: theirs.length }];
	for (let k = 1; k < bounds.length; k++) {
		const [p, q] = [bounds[k - 1], bounds[k]];
		if (q.i - p.i !== q.j - p.j) continue;
		for (let d = 1; p.i + d < q.i; d++) out.set(mine[p.i + d].name, theirs[p.j + d].name);
	}
	return out;
}

/**
 * The functions and classes of the newest release's module paired with the pinned ones:
 * `Map(newest minified → pinned minified)`, first by identical normalised text, then by
 * features.
 */
export function pairDeclarations(pinnedStatements, newestStatements) {
	const decls = sts =>
		sts.map(text => ({ text, name: declaredName(text) })).filter(d => d.name).map(d => ({ ...d, f: features(d.text), shape: localShape(d.text) }));
	const a = decls(pinnedStatements);
	const b = decls(newestStatements);
	const pairs = new Map();
	const usedA = new Set();
	const byShape = new Map();
	for (const d of a) if (!byShape.has(d.shape)) byShape.set(d.shape, d);
	const rest = [];
	for (const d of b) {
		const same = byShape.get(d.shape);
		if (same && !usedA.has(same.name)) {
			pairs.set(d.name, same.name);
			usedA.add(same.name);
		} else rest.push(d);
	}
	const left = a.filter(d => !usedA.has(d.name));
	for (const [nb, na] of matchBoth(rest, left, 0.4)) pairs.set(nb, na);
	return pairs;
}

// Pairs `{name, f}` items of `xs` with those of `ys` whose feature sets are each other's
// most similar (cosine over counts) and at least `min` alike.
function matchBoth(xs, ys, min) {
	const sim = (p, q) => {
		let dot = 0;
		let np = 0;
		let nq = 0;
		for (const [k, v] of p) {
			np += v * v;
			const w = q.get(k);
			if (w) dot += v * w;
		}
		for (const v of q.values()) nq += v * v;
		return np && nq ? dot / Math.sqrt(np * nq) : 0;
	};
	const best = (x, pool) => {
		let top = null;
		let score = -1;
		for (const y of pool) {
			const s = sim(x.f, y.f);
			if (s > score) [top, score] = [y, s];
		}
		return { top, score };
	};
	const out = new Map();
	for (const x of xs) {
		const { top, score } = best(x, ys);
		if (!top || score < min) continue;
		if (best(top, xs).top === x) out.set(x.name, top.name);
	}
	return out;
}

// A statement with every identifier that is not a property replaced by a placeholder: two
// declarations with the same shape are the same code under other names.
function localShape(text) {
	let prev = "";
	return tokenize(text)
		.map(t => {
			const s = (t.kind === IDENT || t.kind === PRIVATE) && prev !== "." && prev !== "?." ? "_" : t.text;
			prev = t.text;
			return s;
		})
		.join(" ");
}

/**
 * The normalised, laid-out text of a module's code statements. `names` maps minified
 * top-level names to stable ones (declarations of this module, exports of the bundle);
 * `topLevel` is the bundle's set of top-level names; `helpers` names the bundler's own
 * helpers (`{lazy, exports}`); `versions` are replaced by `<version>`.
 */
export function normalizeStatements(statements, { names, topLevel, helpers, lazyInits, versions = [] }) {
	const out = [];
	for (let text of statements) {
		text = dropInitCalls(text, helpers.lazy, lazyInits);
		out.push(layout(renameStatement(text, { names, topLevel, helpers }), versions));
	}
	return out.join("\n");
}

// `var w=S(()=>{a();b();REST})` → `var w=S(()=>{REST})` when a, b are lazy initialisers.
function dropInitCalls(text, lazy, lazyInits) {
	if (!lazy) return text;
	const head = new RegExp(`^(var [A-Za-z_$][\\w$]*=${lazy.replace(/\$/g, "\\$")}\\(\\(\\)=>\\{)`).exec(text);
	if (!head) return text;
	let rest = text.slice(head[1].length);
	for (;;) {
		const m = /^([A-Za-z_$][\w$]*)\(\)[;,]?/.exec(rest);
		if (!m || !lazyInits.has(m[1])) break;
		rest = rest.slice(m[0].length);
	}
	return head[1] + rest;
}

const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const localName = n => LETTERS[n % 26] + (n >= 26 ? String(Math.floor(n / 26)) : "");

function renameStatement(text, { names, topLevel, helpers }) {
	const toks = tokenize(text);
	const locals = new Map();
	const privates = new Map();
	const outside = new Map();
	// class bodies: brace depth at which a class body opened (members are names there)
	const classBodies = [];
	let depth = 0;
	let classPending = false;
	const inModuleSyntax = toks[0]?.text === "import" || toks[0]?.text === "export";
	return toks.map((t, i) => {
		const prev = toks[i - 1]?.text ?? "";
		const next = toks[i + 1]?.text ?? "";
		if (t.kind === KEYWORD && t.text === "class") classPending = true;
		if (t.kind === PUNCT) {
			if (t.text === "{") {
				depth++;
				if (classPending) {
					classBodies.push(depth);
					classPending = false;
				}
			} else if (t.text === "}") {
				if (classBodies[classBodies.length - 1] === depth) classBodies.pop();
				depth--;
			}
			return { ...t };
		}
		if (t.kind === PRIVATE) {
			if (!privates.has(t.text)) privates.set(t.text, `#${localName(privates.size)}`);
			return { ...t, text: privates.get(t.text) };
		}
		if (t.kind !== IDENT) return { ...t };
		if (prev === "." || prev === "?.") return { ...t };
		if (inModuleSyntax && (t.text === "as" || t.text === "from")) return { ...t };
		if ((prev === "{" || prev === ",") && next === ":") return { ...t };
		const inClassBody = classBodies.length > 0 && classBodies[classBodies.length - 1] === depth;
		if (inClassBody && (next === "(" || next === "=" || next === ";" || next === "}" || /^(get|set|static|async)$/.test(prev) || prev === "*")) {
			// a member name, or the get/set/static/async before one
			return { ...t };
		}
		if (inClassBody && /^(get|set|static|async)$/.test(t.text)) return { ...t };
		if (/^(async)$/.test(t.text) && (next === "function" || next === "(" || toks[i + 1]?.kind === IDENT)) return { ...t };
		if (t.text === helpers.lazy) return { ...t, text: "__esm" };
		if (t.text === helpers.exports) return { ...t, text: "__export" };
		if (names.has(t.text)) return { ...t, text: names.get(t.text) };
		if (topLevel.has(t.text)) {
			if (!outside.has(t.text)) outside.set(t.text, `@${outside.size + 1}`);
			return { ...t, text: outside.get(t.text) };
		}
		if (GLOBALS.has(t.text)) return { ...t };
		if (!locals.has(t.text)) locals.set(t.text, localName(locals.size));
		return { ...t, text: locals.get(t.text) };
	});
}

const WORDY = /[\w$#@]$/;
const STARTS_WORDY = /^[\w$#@\\]/;

// One statement per line, blocks indented; object literals stay on their line.
function layout(toks, versions) {
	const lines = [];
	let line = "";
	let indent = 0;
	const braces = []; // "block" | "object"
	const parens = [0];
	let classPending = false;
	const flush = () => {
		if (line.trim()) lines.push("  ".repeat(Math.max(0, indent)) + line.trim());
		line = "";
	};
	const text = t => {
		let s = t.text;
		if (t.kind === STRING || t.kind === TEMPLATE || t.kind === TEMPLATE_HEAD || t.kind === TEMPLATE_MIDDLE || t.kind === TEMPLATE_TAIL) {
			for (const v of versions) s = s.split(v).join("<version>");
			// hashed asset names (`CHANGELOG-gt9zfr1f.md`)
			s = s.replace(/-[a-z0-9]{8}\.(md|css|js|html|json|txt)\b/g, "-<hash>.$1");
			// multi-line templates: keep them on one line of the layout
			s = s.replace(/\n/g, "\\n");
		}
		return s;
	};
	toks.forEach((t, i) => {
		const prev = toks[i - 1];
		const s = text(t);
		if (t.kind === KEYWORD && t.text === "class") classPending = true;
		if (t.kind === PUNCT && t.text === "{") {
			const p = prev?.text ?? "";
			const block = classPending || /^(\)|=>|else|try|finally|do|;|\{|\}|catch|static)$/.test(p) || (prev?.kind === KEYWORD && p === "else");
			classPending = false;
			braces.push(block ? "block" : "object");
			parens.push(0);
			if (block) {
				line += "{";
				flush();
				indent++;
				return;
			}
		} else if (t.kind === PUNCT && t.text === "}") {
			const kind = braces.pop();
			parens.pop();
			if (kind === "block") {
				flush();
				indent--;
				line = "}";
				const nx = toks[i + 1]?.text ?? "";
				if (!/^(else|catch|finally|\)|,|;|\.|\?\.|\]|while)$/.test(nx) && toks[i + 1]) flush();
				return;
			}
		} else if (t.kind === PUNCT && t.text === "(") parens[parens.length - 1]++;
		else if (t.kind === PUNCT && t.text === ")") parens[parens.length - 1]--;
		if (t.kind === KEYWORD && (t.text === "case" || t.text === "default") && braces[braces.length - 1] === "block" && parens[parens.length - 1] === 0) flush();
		const glue = line && WORDY.test(line) && STARTS_WORDY.test(s) ? " " : line && /[+-]$/.test(line) && /^[+-]/.test(s) ? " " : "";
		line += glue + s;
		if (t.kind === PUNCT && t.text === ";" && parens[parens.length - 1] === 0 && braces[braces.length - 1] !== "object") flush();
	});
	flush();
	return lines.join("\n");
}

/**
 * Stable names for one module's code in two bundles: `{names1, names2}`, each a
 * `Map(minified → name)` for `normalizeStatements`. Functions and classes get their export
 * name, else their source name (pinned, from `source`), else their counterpart's name;
 * `var`s get an export name when either release exports them (paired by position).
 */
export function nameModule({ pinned, newest, source }) {
	const [b1, b2] = [pinned.bundle, newest.bundle];
	const [exp1, exp2] = [b1.exportNames(), b2.exportNames()];
	const names1 = new Map([...b1.importNames(), ...exp1]);
	const names2 = new Map([...b2.importNames(), ...exp2]);
	const fromSource = source ? namesFromSource(pinned.statements, source, splitStatements(source), exp1) : new Map();
	const pairs = pairDeclarations(pinned.statements, newest.statements);
	const inverse = new Map([...pairs].map(([n, p]) => [p, n]));
	const declared1 = new Map();
	let unnamed = 0;
	for (const text of pinned.statements) {
		const d = declaredName(text);
		if (!d) continue;
		const name = exp1.get(d) ?? fromSource.get(d) ?? exp2.get(inverse.get(d)) ?? `fn@${++unnamed}`;
		declared1.set(d, name);
		names1.set(d, name);
	}
	let added = 0;
	for (const text of newest.statements) {
		const d = declaredName(text);
		if (d) names2.set(d, exp2.get(d) ?? declared1.get(pairs.get(d)) ?? `fn@new${++added}`);
	}
	// `var`s: statements paired in order by their number of declarators (longest common
	// subsequence), declarators by position; a name is its export name in either release,
	// else `var@N` in the pinned release's order.
	const isWrapper = (t, b) => b.helper && new RegExp(`^var [A-Za-z_$][\\w$]*=${b.helper.replace(/\$/g, "\\$")}\\(\\(\\)=>`).test(t);
	const vars = (statements, b) => statements.filter(t => t.startsWith("var ") && !isWrapper(t, b)).map(varNames);
	const [v1, v2] = [vars(pinned.statements, b1), vars(newest.statements, b2)];
	const varPairs = new Map();
	for (const [i, j] of lcs(v1.map(d => d.length), v2.map(d => d.length))) v1[i].forEach((x, k) => varPairs.set(v2[j][k], x));
	let varCount = 0;
	const varName1 = new Map();
	for (const decl of v1)
		for (const x of decl) {
			const name = exp1.get(x) ?? exp2.get([...varPairs].find(([, p]) => p === x)?.[0]) ?? `var@${++varCount}`;
			varName1.set(x, name);
			names1.set(x, name);
		}
	let newVars = 0;
	for (const decl of v2) for (const y of decl) names2.set(y, exp2.get(y) ?? varName1.get(varPairs.get(y)) ?? `var@new${++newVars}`);
	return { names1, names2 };
}

// Index pairs of a longest common subsequence of two short sequences.
function lcs(a, b) {
	const n = a.length;
	const m = b.length;
	const t = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
	for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) t[i][j] = a[i] === b[j] ? t[i + 1][j + 1] + 1 : Math.max(t[i + 1][j], t[i][j + 1]);
	const out = [];
	for (let i = 0, j = 0; i < n && j < m; ) {
		if (a[i] === b[j]) out.push([i++, j++]);
		else if (t[i + 1][j] >= t[i][j + 1]) i++;
		else j++;
	}
	return out;
}
