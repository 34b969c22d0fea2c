// A Bun bundle (`dist/cli.js`) split back into its modules.
//
// Bun emits each module's code contiguously: its text imports (`var x=\`…prompt…\``), the
// namespace object and its exports (`var ns={};F(ns,{name:()=>x,…})`), its functions and
// classes, its `var` declarations, and — for a module initialised lazily, as every package
// of the agents is — one wrapper `var init=S(()=>{…})` that runs its imports' initialisers
// and assigns its constants. That wrapper ends the module, so the statements between two
// wrappers form one chunk, which is one module (or an eagerly evaluated module together with
// the next lazy one).
//
// A source module is found among the chunks by the features a minifier keeps (string
// values, property names, export names, numbers), weighted by how rare they are among the
// chunks; the module of one release is found in the other release's bundle the same way.

import { features, sourceFeatures, splitStatements } from "./statements.mjs";
import { STRING, TEMPLATE, literalValue, scan, tokenize } from "./tokens.mjs";

/** A bundle: its text, statements and chunks (lazily computed features). */
export class Bundle {
	constructor(src, label) {
		this.src = src;
		this.label = label;
		this.statements = splitStatements(src);
		this.helper = lazyInitHelper(src, this.statements);
		this.chunks = chunk(src, this.statements, this.helper);
		this._exportNames = null;
		this._idf = null;
	}

	/** The text of chunk `i` (its statements, source order). */
	chunkText(i) {
		const c = this.chunks[i];
		return this.src.slice(this.statements[c.first].start, this.statements[c.last].end);
	}

	/** The statements of chunk `i` that carry code (see `codeStatements`). */
	code(i) {
		const c = this.chunks[i];
		c.code ??= codeStatements(this, i);
		return c.code;
	}

	/** Features of every chunk's code, and how rare each is (inverse document frequency). */
	idf() {
		if (this._idf) return this._idf;
		const df = new Map();
		for (let i = 0; i < this.chunks.length; i++) {
			const c = this.chunks[i];
			c.features = features(this.code(i).join("\n"));
			for (const f of c.features.keys()) df.set(f, (df.get(f) ?? 0) + 1);
		}
		const n = this.chunks.length;
		const idf = new Map();
		for (const [f, d] of df) idf.set(f, Math.log((n + 1) / d));
		this._idf = idf;
		return idf;
	}

	/**
	 * The chunks most like a module with features `want`, best first: `[{index, score}]`
	 * (cosine similarity of the rare-feature vectors).
	 */
	rank(want, top = 3) {
		const idf = this.idf();
		const weight = f => idf.get(f) ?? 0;
		let wantNorm = 0;
		for (const f of want.keys()) wantNorm += weight(f) ** 2;
		const scored = [];
		this.chunks.forEach((c, index) => {
			let dot = 0;
			let norm = 0;
			for (const f of c.features.keys()) {
				const w = weight(f);
				norm += w * w;
				if (want.has(f)) dot += w * w;
			}
			if (dot > 0) scored.push({ index, score: dot / Math.sqrt(norm * wantNorm) });
		});
		scored.sort((a, b) => b.score - a.score);
		return scored.slice(0, top);
	}

	/**
	 * Minified top-level name → the name it is exported under (`F(ns,{name:()=>x})`), for
	 * every export in the bundle: those names are the source's, the same in every release.
	 */
	exportNames() {
		if (this._exportNames) return this._exportNames;
		const map = new Map();
		const re = /([A-Za-z_$][\w$]*):\(\)=>([A-Za-z_$][\w$]*)/g;
		for (const st of this.statements) {
			if (!this.exportHelper || st.head !== this.exportHelper) continue;
			const text = this.src.slice(st.start, st.end);
			for (const m of text.matchAll(re)) if (!map.has(m[2])) map.set(m[2], m[1]);
		}
		this._exportNames = map;
		return map;
	}

	/** The helper that declares a namespace's exports: `F` in `F(ns,{name:()=>x})`. */
	get exportHelper() {
		if (this._exportHelper !== undefined) return this._exportHelper;
		const counts = new Map();
		for (const st of this.statements) {
			const m = /^([A-Za-z_$][\w$]*)\([A-Za-z_$][\w$]*,\{[A-Za-z_$][\w$]*:\(\)=>/.exec(this.src.slice(st.start, st.start + 200));
			if (m) counts.set(m[1], (counts.get(m[1]) ?? 0) + 1);
		}
		this._exportHelper = mostFrequent(counts);
		return this._exportHelper;
	}

	/** The names of the lazy initialisers (`var init=S(()=>{…})`). */
	lazyInitNames() {
		if (this._lazyInits) return this._lazyInits;
		const names = new Set();
		if (this.helper) {
			const re = new RegExp(`^var ([A-Za-z_$][\\w$]*)=${this.helper.replace(/\$/g, "\\$")}\\(\\(\\)=>`);
			for (const st of this.statements) {
				if (st.head !== "var") continue;
				const m = re.exec(this.src.slice(st.start, st.start + 120));
				if (m) names.add(m[1]);
			}
		}
		this._lazyInits = names;
		return names;
	}

	/**
	 * Bindings of the bundle's own `import` statements (packages it leaves external), named
	 * after what they import: `import*as x from"p"` → `p.*`, `import{a as x}from"p"` → `p.a`.
	 */
	importNames() {
		if (this._imports) return this._imports;
		const map = new Map();
		for (const st of this.statements) {
			if (st.head !== "import") continue;
			const text = this.src.slice(st.start, st.end);
			const from = /from\s*["']([^"']+)["']/.exec(text)?.[1];
			if (!from) continue;
			const ns = /import\s*\*\s*as\s*([A-Za-z_$][\w$]*)/.exec(text);
			if (ns) map.set(ns[1], `${from}.*`);
			const def = /^import\s+([A-Za-z_$][\w$]*)\s*(,|from)/.exec(text);
			if (def) map.set(def[1], `${from}.default`);
			const named = /\{([^}]*)\}/.exec(text);
			if (named)
				for (const part of named[1].split(",")) {
					const m = /^\s*([A-Za-z_$][\w$]*)(?:\s+as\s+([A-Za-z_$][\w$]*))?\s*$/.exec(part);
					if (m) map.set(m[2] ?? m[1], `${from}.${m[1]}`);
				}
		}
		this._imports = map;
		return map;
	}

	/** Every string or template literal value of at least 8 characters (a Set). */
	literals() {
		if (this._literals) return this._literals;
		const set = new Set();
		scan(this.src, (kind, s, e) => {
			if ((kind === STRING || kind === TEMPLATE) && e - s >= 10) {
				const v = literalValue({ kind, text: this.src.slice(s, e) });
				if (v !== null) set.add(v);
			}
		});
		this._literals = set;
		return set;
	}

	/** Names declared by top-level statements anywhere in the bundle. */
	topLevelNames() {
		if (this._topLevel) return this._topLevel;
		const names = new Set();
		const decl = /^(?:async\s+)?(?:function\*?|class)\s*([A-Za-z_$][\w$]*)/;
		for (const st of this.statements) {
			const text = this.src.slice(st.start, Math.min(st.end, st.start + 300));
			const m = decl.exec(text);
			if (m) names.add(m[1]);
			else if (/^(var|let|const)\b/.test(st.head)) for (const n of varNames(this.src.slice(st.start, st.end))) names.add(n);
		}
		for (const n of this.importNames().keys()) names.add(n);
		this._topLevel = names;
		return names;
	}
}

/**
 * The names a top-level `var a=1,b,c=f(…)` declares (the first identifier of each
 * declarator at depth 0).
 */
export function varNames(text) {
	const names = [];
	let depth = 0;
	let expectName = true;
	let i = text.indexOf(" ") + 1;
	for (; i < text.length; i++) {
		const c = text[i];
		if (c === '"' || c === "'" || c === "`") {
			i = skipLiteral(text, i);
			continue;
		}
		if (c === "(" || c === "[" || c === "{") depth++;
		else if (c === ")" || c === "]" || c === "}") depth--;
		else if (depth === 0 && c === ",") expectName = true;
		else if (depth === 0 && expectName && /[A-Za-z_$]/.test(c)) {
			const m = /^[A-Za-z_$][\w$]*/.exec(text.slice(i));
			names.push(m[0]);
			i += m[0].length - 1;
			expectName = false;
		} else if (!/\s/.test(c)) expectName = false;
	}
	return names;
}

// Past a quoted or template literal starting at `i` (templates: substitutions with nested
// literals are skipped by counting braces).
function skipLiteral(text, i) {
	const q = text[i];
	let depth = 0;
	for (i++; i < text.length; i++) {
		const c = text[i];
		if (c === "\\") i++;
		else if (q === "`" && c === "$" && text[i + 1] === "{") {
			depth++;
			i++;
		} else if (q === "`" && depth > 0 && c === "}") depth--;
		else if (c === q && depth === 0) return i;
	}
	return i;
}

function mostFrequent(counts) {
	let best = null;
	let n = 0;
	for (const [k, v] of counts) if (v > n) [best, n] = [k, v];
	return best;
}

// The helper of `var init=S(()=>{…})`, Bun's lazy module initialiser: the callee of that
// shape used most often.
function lazyInitHelper(src, statements) {
	const counts = new Map();
	for (const st of statements) {
		if (st.head !== "var") continue;
		const m = /^var [A-Za-z_$][\w$]*=([A-Za-z_$][\w$]*)\(\(\)=>/.exec(src.slice(st.start, st.start + 120));
		if (m) counts.set(m[1], (counts.get(m[1]) ?? 0) + 1);
	}
	return mostFrequent(counts);
}

function chunk(src, statements, helper) {
	const chunks = [];
	let first = 0;
	const wrapper = helper ? new RegExp(`^var [A-Za-z_$][\\w$]*=${helper.replace(/\$/g, "\\$")}\\(\\(\\)=>`) : null;
	statements.forEach((st, i) => {
		if (wrapper && st.head === "var" && wrapper.test(src.slice(st.start, st.start + 120))) {
			chunks.push({ first, last: i });
			first = i + 1;
		}
	});
	if (first < statements.length) chunks.push({ first, last: statements.length - 1 });
	return chunks;
}

/** The features by which a source module is recognised in a bundle. */
export function moduleFeatures(source) {
	return sourceFeatures(source);
}

/**
 * Where a module is in a bundle: `{index, score, margin}` for the best chunk, or null when
 * no chunk shares a feature. `margin` is the best score over the second best's.
 */
export function locate(bundle, want) {
	const [best, second] = bundle.rank(want, 2);
	if (!best) return null;
	return { index: best.index, score: best.score, margin: second ? best.score / second.score : Infinity };
}

/**
 * The statements of chunk `i` of `bundle` that carry code: text imports and the namespace
 * object with its export list (`var ns={};F(ns,{…})`) dropped.
 */
function codeStatements(bundle, i) {
	const c = bundle.chunks[i];
	const sts = bundle.statements;
	const texts = [];
	for (let k = c.first; k <= c.last; k++) texts.push(bundle.src.slice(sts[k].start, sts[k].end));
	const helper = bundle.exportHelper;
	const namespaces = new Set();
	if (helper) {
		const re = new RegExp(`^${helper.replace(/\$/g, "\\$")}\\(([A-Za-z_$][\\w$]*),\\{`);
		for (const t of texts) {
			const m = re.exec(t);
			if (m) namespaces.add(m[1]);
		}
	}
	const out = [];
	for (let k = 0; k < texts.length; k++) {
		const text = texts[k];
		if (isTextImport(text) && /^var [A-Za-z_$][\w$]*=\(\)=>\{\};?$/.test(texts[k + 1] ?? "")) {
			k++;
			continue;
		}
		const ns = /^var ([A-Za-z_$][\w$]*)=\{\};?$/.exec(text);
		if (ns && namespaces.has(ns[1])) continue;
		if (helper && text.startsWith(`${helper}(`) && namespaces.has(/^[^(]*\(([^,]*),/.exec(text)?.[1])) continue;
		out.push(text);
	}
	return out;
}

// `var x=<one string or template literal without substitutions>;`
function isTextImport(text) {
	const m = /^var [A-Za-z_$][\w$]*=(?=["'`])/.exec(text);
	if (!m) return false;
	const toks = tokenize(text.slice(m[0].length));
	return toks.length <= 2 && (toks[0]?.kind === STRING || toks[0]?.kind === TEMPLATE) && (toks.length === 1 || toks[1].text === ";");
}

