// scripts/agent-drift.sh offline, on the two fixture package trees beside this file: the
// pinned release (the core package published as sources) and the newest one (the core only
// inside dist/cli.js, a Bun-style bundle whose minified names all differ from the pinned
// bundle's). `node --test tests/drift/` (scripts/test.sh step `drift`).

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { Bundle } from "../../scripts/drift/bundle.mjs";
import { nameModule, normalizeStatements } from "../../scripts/drift/normalize.mjs";
import { splitStatements } from "../../scripts/drift/statements.mjs";
import { tokenize } from "../../scripts/drift/tokens.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const script = path.join(root, "scripts/agent-drift.sh");

function drift(...args) {
	const r = spawnSync("bash", [script, ...args], { encoding: "utf8" });
	assert.equal(r.error, undefined);
	return r;
}

function withOut(fn) {
	const out = fs.mkdtempSync(path.join(os.tmpdir(), "drift-test-"));
	try {
		return fn(out);
	} finally {
		fs.rmSync(out, { recursive: true, force: true });
	}
}

// The report's status of one module id ("changed", "unchanged", …), from report.json.
function statuses(out) {
	const json = JSON.parse(fs.readFileSync(path.join(out, "omp/report.json"), "utf8"));
	return Object.fromEntries(json.modules.map(m => [m.id, m.status]));
}

test("flags the changed modules and only those", () =>
	withOut(out => {
		const r = drift("--agent", "omp", "--from-dir", path.join(here, "pinned"), "--to-dir", path.join(here, "newest"), "--out", out);
		assert.equal(r.status, 1, r.stdout + r.stderr);
		const s = statuses(out);
		// a source change in the coding agent
		assert.equal(s["ca:session/session-context.ts"], "changed");
		// comments and imports are not behaviour
		assert.equal(s["ca:session/session-loader.ts"], "unchanged");
		// the same core code under other minified names, other bundler helpers, other locals
		assert.equal(s["core:compaction/compaction.ts"], "unchanged");
		// … and with the release's version string inlined in its module
		assert.equal(s["core:tokenizer.ts"], "unchanged");
		// a changed constant and comparison inside the bundle
		assert.equal(s["core:compaction/pruning.ts"], "changed");
		assert.equal(s["core:compaction/prompts/compaction-summary.md"], "unchanged");
		const diff = fs.readFileSync(path.join(out, "omp/core_compaction_pruning.ts.diff"), "utf8");
		assert.match(diff, /^-.*protectTokens:40000/m);
		assert.match(diff, /^\+.*protectTokens:30000/m);
		assert.match(diff, /^\+.*tokens<=MIN_PRUNE_TOKENS/m);
		// nothing but those two lines: the export list and the names moved without a trace
		assert.equal(diff.split("\n").filter(l => /^[-+][^-+]/.test(l)).length, 4, diff);
		assert.match(r.stdout, /CHANGED \(2\)/);
		assert.match(r.stdout, /result: 2 of 6 watched modules changed \(1\.0\.0 → 1\.1\.0\)/);
	}));

test("the same tree twice changes nothing", () => {
	const tree = path.join(here, "pinned");
	const r = drift("--agent", "omp", "--from-dir", tree, "--to-dir", tree);
	assert.equal(r.status, 0, r.stdout + r.stderr);
	assert.match(r.stdout, /result: no watched module changed/);
});

test("bad input is an error with exit code 2", () => {
	let r = drift("--agent", "omp", "--from-dir", path.join(here, "pinned"), "--to-dir", path.join(here, "missing"));
	assert.equal(r.status, 2);
	assert.match(r.stderr, /no folder .*missing/);
	r = drift("--agent", "nobody", "--from-dir", here, "--to-dir", here);
	assert.equal(r.status, 2);
	assert.match(r.stderr, /unknown agent "nobody"/);
	r = drift("--from-dir", here, "--to-dir", here);
	assert.equal(r.status, 2);
	r = drift("--bogus");
	assert.equal(r.status, 2);
});

test("the tokenizer tells regular expressions from divisions", () => {
	const kinds = src => tokenize(src).map(t => `${t.kind}:${t.text}`);
	assert.deepEqual(kinds("a=b/c/d"), ["ident:a", "punct:=", "ident:b", "punct:/", "ident:c", "punct:/", "ident:d"]);
	assert.ok(kinds("return/a\\/b[/]/g.test(x)").includes("regex:/a\\/b[/]/g"));
	assert.ok(kinds("if(x)/re/.test(y)").includes("regex:/re/"));
	assert.ok(kinds("f(x)/2").includes("punct:/"));
	// `...typeof x` is the keyword, `a.typeof` a property
	assert.ok(kinds("[...typeof x]").includes("keyword:typeof"));
	assert.ok(kinds("a.typeof").includes("ident:typeof"));
	// a template's substitution may hold braces and templates of its own
	const t = tokenize("`a${ {b:`c${d}`}.b }e`+f");
	assert.equal(t[t.length - 1].text, "f");
});

test("top-level statements of minified and of TypeScript code", () => {
	const min = "var a=1;function b(){return{c:1}}class D{e(){}}var f=g(()=>{a=2});if(a){b()}else{c()}h();";
	assert.deepEqual(
		splitStatements(min).map(s => min.slice(s.start, s.end)),
		["var a=1;", "function b(){return{c:1}}", "class D{e(){}}", "var f=g(()=>{a=2});", "if(a){b()}else{c()}", "h();"],
	);
	const ts = 'export { a } from "./a";\nexport function b(): void {\n}\nexport const c = { d: 1 };\n';
	assert.deepEqual(
		splitStatements(ts).map(s => s.head),
		["export {", "export function", "export const"],
	);
});

test("normalised code does not depend on the names a minifier picked", () => {
	const one = new Bundle('var A=(e,t)=>e;var S=(e,t)=>()=>t;var n1={};A(n1,{f:()=>x1});function x1(e,t){let s=y1(e);return s+t}function y1(e){return e*2}var i1=S(()=>{});');
	const two = new Bundle('var Q=(e,t)=>e;var W=(e,t)=>()=>t;var n2={};Q(n2,{f:()=>zz});function zz(t,n){let r=kk(t);return r+n}function kk(t){return t*2}var i2=W(()=>{});');
	const st1 = one.code(0);
	const st2 = two.code(0);
	const { names1, names2 } = nameModule({ pinned: { bundle: one, statements: st1 }, newest: { bundle: two, statements: st2 } });
	const norm = (b, st, names) =>
		normalizeStatements(st, { names, topLevel: b.topLevelNames(), helpers: { lazy: b.helper, exports: b.exportHelper }, lazyInits: b.lazyInitNames() });
	const a = norm(one, st1, names1);
	assert.equal(a, norm(two, st2, names2));
	assert.match(a, /^function f\(a,b\)\{/m);
});
