// Top-level statements of a JavaScript or TypeScript file, and the features that survive
// minification (string values, property names, numbers) by which a minified module is
// recognised as the source module it was built from.

import { IDENT, KEYWORD, NUMBER, PUNCT, REGEX, STRING, TEMPLATE, TEMPLATE_HEAD, TEMPLATE_MIDDLE, TEMPLATE_TAIL, literalValue, scan } from "./tokens.mjs";

// A statement headed by one of these ends with the `}` that brings the depth back to 0
// (unless `else`, `catch` or `finally` continues it); any other ends at a top-level `;`.
const BLOCK_HEADS = new Set(["function", "class", "if", "for", "while", "try", "do", "switch", "{", "interface", "namespace", "module", "enum"]);
const CONTINUATIONS = new Set(["else", "catch", "finally", "while"]);

/**
 * The top-level statements of `src` as `{start, end, head}` (offsets; `head` is the first
 * token, with the modifiers before it: "export async function", "var", "F", …).
 */
export function splitStatements(src) {
	const out = [];
	let depth = 0;
	let start = -1;
	let head = "";
	let open = false; // still reading modifiers into `head`
	let pendingEnd = false;
	let lastEnd = 0;
	scan(src, (kind, s, e) => {
		const text = src.slice(s, e);
		if (pendingEnd) {
			pendingEnd = false;
			if (!(kind === KEYWORD && CONTINUATIONS.has(text)) && !(kind === PUNCT && text === ";")) {
				out.push({ start, end: lastEnd, head });
				start = -1;
			}
		}
		if (start < 0) {
			start = s;
			head = text;
			open = MODIFIERS.has(text);
		} else if (open) {
			head = `${head} ${text}`;
			open = MODIFIERS.has(text);
		}
		if (kind === PUNCT) {
			if (text === "{" || text === "(" || text === "[") depth++;
			else if (text === "}" || text === ")" || text === "]") {
				depth--;
				if (depth === 0 && text === "}" && endsAtBrace(head)) pendingEnd = true;
			} else if (text === ";" && depth === 0) {
				out.push({ start, end: e, head });
				start = -1;
			}
		} else if (kind === TEMPLATE_HEAD) depth++;
		else if (kind === TEMPLATE_TAIL) depth--;
		lastEnd = e;
	});
	if (start >= 0) out.push({ start, end: src.length, head });
	return out;
}

const MODIFIERS = new Set(["export", "default", "declare", "abstract", "async"]);

// Whether a statement with this head ends at the `}` that closes its body (a declaration or
// a compound statement) rather than at a `;` (`export const x = {…};`).
function endsAtBrace(head) {
	const word = head.split(" ").find(w => !MODIFIERS.has(w)) ?? "";
	// `export { a } from "b";` and `export default {…};` end at their `;`
	if (word === "{" && head.startsWith("export")) return false;
	return BLOCK_HEADS.has(word);
}

/**
 * The features of `src.slice(start, end)` that a minifier keeps: string and template text
 * (`s:`), property names and object keys (`p:`), numbers (`n:`), regular expressions (`r:`).
 * Counts are added to `out`.
 */
export function features(src, start = 0, end = src.length, out = new Map()) {
	const slice = start === 0 && end === src.length ? src : src.slice(start, end);
	const add = f => out.set(f, (out.get(f) ?? 0) + 1);
	let prev = "";
	// An identifier after `{` or `,` is an object key when a `:` follows it.
	let maybeKey = null;
	scan(slice, (kind, s, e) => {
		const text = slice.slice(s, e);
		if (maybeKey !== null && kind === PUNCT && text === ":") add(`p:${maybeKey}`);
		maybeKey = null;
		if (kind === STRING || kind === TEMPLATE) {
			const v = literalValue({ kind, text });
			if (v) add(`s:${v}`);
		} else if (kind === TEMPLATE_HEAD || kind === TEMPLATE_MIDDLE || kind === TEMPLATE_TAIL) {
			const body = text.replace(/^[`}]/, "").replace(/(\$\{|`)$/, "");
			if (body) add(`s:${body}`);
		} else if (kind === IDENT || kind === KEYWORD) {
			if (prev === "." || prev === "?.") add(`p:${text}`);
			else if (prev === "{" || prev === ",") maybeKey = text;
		} else if (kind === NUMBER) {
			const v = Number(text.replace(/_/g, "").replace(/n$/, ""));
			add(`n:${Number.isNaN(v) ? text : v}`);
		} else if (kind === REGEX) add(`r:${text}`);
		prev = text;
	});
	return out;
}

// TypeScript statements that leave no code in a bundle.
const TYPE_ONLY = /^(import|export type|type|interface|export interface|declare|export declare|export \{|export \*)\b/;

/** The features of a TypeScript / JavaScript source module's runtime statements. */
export function sourceFeatures(src) {
	const out = new Map();
	for (const st of splitStatements(src)) {
		if (TYPE_ONLY.test(st.head) || /^export \{[^}]*\} from\b|^export \* from\b/.test(src.slice(st.start, st.start + 200))) continue;
		features(src, st.start, st.end, out);
	}
	return out;
}

/**
 * The code of a source module without what does not change behaviour: comments, import
 * declarations, blank lines and trailing spaces.
 */
export function sourceCode(src) {
	const imports = splitStatements(src).filter(st => st.head === "import");
	let out = "";
	let last = 0;
	let next = 0;
	scan(src, (kind, s, e) => {
		while (next < imports.length && imports[next].end <= s) next++;
		const inImport = next < imports.length && imports[next].start <= s && s < imports[next].end;
		// the gap holds only whitespace and comments
		const gap = src.slice(last, s).replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "");
		if (!inImport) out += gap + src.slice(s, e);
		else out += gap.replace(/[^\n]/g, "");
		last = e;
	});
	return out
		.split("\n")
		.map(l => l.trimEnd())
		.filter(l => l.trim().length > 0)
		.join("\n");
}
