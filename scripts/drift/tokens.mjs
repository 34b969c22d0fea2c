// A JavaScript / TypeScript tokenizer good enough for release comparison: it tells strings,
// template literals, regular expressions, comments, numbers, identifiers and punctuators
// apart, which is all the drift check needs to split a bundle into top-level statements and
// to rename minifier-chosen identifiers. It is not a parser: TypeScript types come out as
// ordinary tokens, and a `/` is read as a regular expression or a division from the token
// before it (the usual heuristic; minified output does not defeat it).

// Token kinds.
export const IDENT = "ident";
export const KEYWORD = "keyword";
export const PUNCT = "punct";
export const STRING = "string"; // '…' or "…"
export const TEMPLATE = "template"; // a whole `…` literal, substitutions included as text
export const TEMPLATE_HEAD = "template-head"; // `…${  (the substitution's tokens follow)
export const TEMPLATE_MIDDLE = "template-middle"; // }…${
export const TEMPLATE_TAIL = "template-tail"; // }…`
export const REGEX = "regex";
export const NUMBER = "number";
export const PRIVATE = "private"; // #name

const KEYWORDS = new Set(
	(
		"await break case catch class const continue debugger default delete do else export extends false " +
		"finally for function if import in instanceof let new null of return static super switch this throw " +
		"true try typeof var void while with yield"
	).split(" "),
);

// After these keywords an expression starts, so a `/` opens a regular expression.
const EXPRESSION_KEYWORDS = new Set(
	"return typeof instanceof in new delete void throw case do else yield await extends".split(" "),
);

// Longest first, so that the greedy match below picks `>>>=` before `>>`.
const PUNCTUATORS = [
	">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=",
	"=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=",
	"&=", "|=", "^=", "**", "<<", ">>",
	"{", "}", "(", ")", "[", "]", ";", ",", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "!", "~",
	"?", ":", "=", ".", "@",
];

const isIdentStart = c =>
	(c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 36 || c === 95 || c > 127;
const isIdentPart = c => isIdentStart(c) || (c >= 48 && c <= 57);
const isDigit = c => c >= 48 && c <= 57;

export class TokenizeError extends Error {}

/**
 * Calls `visit(kind, start, end)` for every token of `src` in order (comments and whitespace
 * skipped). Offsets are UTF-16 indices into `src`. Throws TokenizeError on an unterminated
 * string, template, regular expression or comment.
 */
export function scan(src, visit) {
	const n = src.length;
	let i = 0;
	// What the previous significant token allows: true when a `/` here starts a regex.
	let regexAllowed = true;
	// One entry per open `(`, `[`, `{` or template substitution: `(` entries remember whether
	// they followed if/while/for/with (then a `/` after the matching `)` is a regex).
	const stack = [];
	let lastIdentText = "";
	// the previous token was `.` or `?.`: a word here is a property name, never a keyword
	let afterDot = false;
	if (src.startsWith("#!")) {
		while (i < n && src.charCodeAt(i) !== 10) i++;
	}
	while (i < n) {
		const c = src.charCodeAt(i);
		// whitespace (incl. line terminators, NBSP, BOM)
		if (c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12 || c === 0xa0 || c === 0xfeff || c === 0x2028 || c === 0x2029) {
			i++;
			continue;
		}
		if (c === 47 /* / */) {
			const d = src.charCodeAt(i + 1);
			if (d === 47) {
				while (i < n && src.charCodeAt(i) !== 10) i++;
				continue;
			}
			if (d === 42) {
				const end = src.indexOf("*/", i + 2);
				if (end < 0) throw new TokenizeError(`unterminated comment at offset ${i}`);
				i = end + 2;
				continue;
			}
			if (regexAllowed) {
				const start = i;
				i = skipRegex(src, i);
				visit(REGEX, start, i);
				regexAllowed = false;
				continue;
			}
		}
		if (c === 34 || c === 39) {
			const start = i;
			i = skipQuoted(src, i, c);
			visit(STRING, start, i);
			regexAllowed = false;
			continue;
		}
		if (c === 96 /* ` */) {
			const start = i;
			const r = skipTemplatePart(src, i + 1);
			i = r.end;
			if (r.closed) {
				visit(TEMPLATE, start, i);
				regexAllowed = false;
			} else {
				visit(TEMPLATE_HEAD, start, i);
				stack.push("${");
				regexAllowed = true;
			}
			continue;
		}
		if (c === 125 /* } */ && stack[stack.length - 1] === "${") {
			stack.pop();
			const start = i;
			const r = skipTemplatePart(src, i + 1);
			i = r.end;
			if (r.closed) {
				visit(TEMPLATE_TAIL, start, i);
				regexAllowed = false;
			} else {
				visit(TEMPLATE_MIDDLE, start, i);
				stack.push("${");
				regexAllowed = true;
			}
			continue;
		}
		if (isDigit(c) || (c === 46 && isDigit(src.charCodeAt(i + 1)))) {
			const start = i;
			i++;
			while (i < n) {
				const e = src.charCodeAt(i);
				if (isIdentPart(e) || e === 46) i++;
				else if ((e === 43 || e === 45) && (src.charCodeAt(i - 1) | 32) === 101 && !/^0[xX]/.test(src.slice(start, i))) i++;
				else break;
			}
			visit(NUMBER, start, i);
			regexAllowed = false;
			continue;
		}
		if (isIdentStart(c) || c === 92 /* \u escape */ || c === 35 /* # */) {
			const start = i;
			i++;
			while (i < n) {
				const e = src.charCodeAt(i);
				if (isIdentPart(e)) i++;
				else if (e === 92 && src.charCodeAt(i + 1) === 117) i += 2;
				else break;
			}
			const text = src.slice(start, i);
			if (c === 35) {
				visit(PRIVATE, start, i);
				regexAllowed = false;
			} else if (KEYWORDS.has(text) && !afterDot) {
				visit(KEYWORD, start, i);
				regexAllowed = EXPRESSION_KEYWORDS.has(text);
			} else {
				visit(IDENT, start, i);
				regexAllowed = false;
			}
			lastIdentText = KEYWORDS.has(text) && !afterDot ? text : "";
			afterDot = false;
			continue;
		}
		let p = null;
		for (const cand of PUNCTUATORS) {
			if (src.startsWith(cand, i)) {
				p = cand;
				break;
			}
		}
		if (p === null) throw new TokenizeError(`unexpected character ${JSON.stringify(src[i])} at offset ${i}`);
		// `a?.5:1` is a conditional, not optional chaining
		if (p === "?." && isDigit(src.charCodeAt(i + 2))) p = "?";
		const start = i;
		i += p.length;
		if (p === "(") stack.push(/^(if|while|for|with)$/.test(lastIdentText) ? "(kw" : "(");
		else if (p === "[" || p === "{") stack.push(p);
		let afterClose = null;
		if (p === ")" || p === "]" || p === "}") afterClose = stack.pop();
		visit(PUNCT, start, i);
		afterDot = p === "." || p === "?.";
		if (p === ")") regexAllowed = afterClose === "(kw";
		else regexAllowed = !(p === "]" || p === "}" || p === "++" || p === "--");
		lastIdentText = "";
	}
	if (stack.includes("${")) throw new TokenizeError("unterminated template literal");
}

function skipQuoted(src, i, quote) {
	const n = src.length;
	i++;
	while (i < n) {
		const c = src.charCodeAt(i);
		if (c === 92) i += 2;
		else if (c === quote) return i + 1;
		else if (c === 10) break;
		else i++;
	}
	throw new TokenizeError(`unterminated string at offset ${i}`);
}

// From just after a backtick or a substitution's `}`: to just after the closing backtick
// (closed) or after the next `${` (not closed).
function skipTemplatePart(src, i) {
	const n = src.length;
	while (i < n) {
		const c = src.charCodeAt(i);
		if (c === 92) i += 2;
		else if (c === 96) return { end: i + 1, closed: true };
		else if (c === 36 && src.charCodeAt(i + 1) === 123) return { end: i + 2, closed: false };
		else i++;
	}
	throw new TokenizeError(`unterminated template literal at offset ${i}`);
}

function skipRegex(src, i) {
	const n = src.length;
	let inClass = false;
	i++;
	while (i < n) {
		const c = src.charCodeAt(i);
		if (c === 92) i += 2;
		else if (c === 10) break;
		else if (inClass) {
			if (c === 93) inClass = false;
			i++;
		} else if (c === 91) {
			inClass = true;
			i++;
		} else if (c === 47) {
			i++;
			while (i < n && isIdentPart(src.charCodeAt(i))) i++;
			return i;
		} else i++;
	}
	throw new TokenizeError(`unterminated regular expression at offset ${i}`);
}

/** Every token of `src` as `{kind, text, start, end}` (for small inputs; bundles use scan). */
export function tokenize(src) {
	const out = [];
	scan(src, (kind, start, end) => out.push({ kind, text: src.slice(start, end), start, end }));
	return out;
}

/**
 * The value of a string or no-substitution template literal token (escapes decoded), or
 * null for anything else.
 */
export function literalValue(tok) {
	if (tok.kind === STRING) {
		try {
			// JSON cannot read single quotes or some escapes; rewrite the simple cases.
			const body = tok.text.slice(1, -1);
			return decodeEscapes(body);
		} catch {
			return null;
		}
	}
	if (tok.kind === TEMPLATE) {
		try {
			return decodeEscapes(tok.text.slice(1, -1).replace(/\r\n?/g, "\n"));
		} catch {
			return null;
		}
	}
	return null;
}

function decodeEscapes(body) {
	if (!body.includes("\\")) return body;
	return body.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[0-7]{1,3}|\r\n|[\s\S])/g, (_, e) => {
		switch (e[0]) {
			case "u":
				return String.fromCodePoint(parseInt(e[1] === "{" ? e.slice(2, -1) : e.slice(1), 16));
			case "x":
				return String.fromCharCode(parseInt(e.slice(1), 16));
			case "n":
				return "\n";
			case "t":
				return "\t";
			case "r":
				return "\r";
			case "b":
				return "\b";
			case "f":
				return "\f";
			case "v":
				return "\v";
			case "\n":
			case "\r":
			case "\u2028":
			case "\u2029":
				return "";
			default:
				if (/^[0-7]+$/.test(e)) return String.fromCharCode(parseInt(e, 8));
				if (e === "\r\n") return "";
				return e;
		}
	});
}
