#!/usr/bin/env node
// Companion of the test harness (tests/agents/oracle.mjs): prints the agents' own
// SessionManager.getTree() for a session file as one JSON line, so that golden files can
// check child order (children sorted by timestamp), orphan/self-parent roots and labels.
//
//   node  scripts/oracle-tree.mjs ORACLE_DIR pi    FILE
//   ORACLE_DIR/node_modules/.bin/bun scripts/oracle-tree.mjs ORACLE_DIR omp13|omp18|omp183|pi16 FILE
//
// pi = @mariozechner/pi-coding-agent 0.73.1 (Node), pi16 = @earendil-works/pi-coding-agent 1.6.0,
// omp13 = @oh-my-pi/pi-coding-agent 13.19.0 (ORACLE_DIR/omp13), omp18 = 18.2.3, omp183 = 18.3.4's
// sources (ORACLE_DIR/omp183; all four: Bun).
//
// Output: {"roots": N, "nodes": [[id, depth, label|null], ...]} in depth-first pre-order
// (roots in getTree order, children in getTree order). Like oracle.mjs, v1 migration ids are
// deterministic (00000001, 00000002, ... in file order) and the file is opened from a
// temporary copy (the agents rewrite migrated or invalid files).
import { createRequire } from "node:module";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";

const [oracleDir, impl, fileArg] = process.argv.slice(2);
if (!oracleDir || !["pi", "pi16", "omp13", "omp18", "omp183"].includes(impl) || !fileArg) {
	process.stderr.write("usage: oracle-tree.mjs ORACLE_DIR pi|pi16|omp13|omp18|omp183 FILE\n");
	process.exit(2);
}
const ORACLE = path.resolve(oracleDir);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "ct-tree-"));
process.env.PI_CODING_AGENT_DIR = path.join(scratch, "agent");
process.env.OMP_APP_NAME = process.env.OMP_APP_NAME ?? "omp";
process.on("exit", () => {
	try {
		fs.rmSync(scratch, { recursive: true, force: true });
	} catch {}
});

// Deterministic ids, exactly as oracle.mjs does (pi takes the first 8 characters of
// randomUUID(), omp the last 8: the counter sits at both ends).
let counter = 0;
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

const copyDir = path.join(scratch, "copy");
fs.mkdirSync(copyDir, { recursive: true });
const file = path.join(copyDir, path.basename(fileArg));
fs.copyFileSync(fileArg, file);

let mgr;
if (impl !== "pi" && typeof globalThis.Bun === "undefined") {
	process.stderr.write(`${impl} needs Bun: run with ORACLE_DIR/node_modules/.bin/bun\n`);
	process.exit(2);
}
if (impl === "pi" || impl === "pi16") {
	const pkg = impl === "pi" ? "@mariozechner/pi-coding-agent" : "@earendil-works/pi-coding-agent";
	const sm = await import(pathToFileURL(path.join(ORACLE, "node_modules", pkg, "dist/core/session-manager.js")).href);
	counter = 0;
	try {
		mgr = sm.SessionManager.open(file, copyDir, process.cwd());
	} catch (err) {
		// pi 1.6.0 throws for a non-empty file without a valid header (oracle.mjs exits 3 too)
		process.stderr.write(`oracle: not a session file (${err.message}): ${fileArg}\n`);
		process.exit(3);
	}
} else if (impl === "omp13") {
	const spec = "@oh-my-pi/pi-coding-agent/session/session-manager";
	const sm = await import(globalThis.Bun.resolveSync(spec, path.join(ORACLE, "omp13")));
	counter = 0;
	mgr = await sm.SessionManager.open(file, path.join(scratch, "sessions"));
} else {
	// omp 18.2.3 / 18.3.4, opened as oracle.mjs does (strips the title slot line, no breadcrumb file)
	const spec = "@oh-my-pi/pi-coding-agent/session/session-manager";
	let base = ORACLE;
	if (impl === "omp183") {
		base = path.join(ORACLE, "omp183");
		const { provideOmp183Modules } = await import(pathToFileURL(path.join(base, "provide-modules.mjs")).href);
		provideOmp183Modules();
	}
	const sm = await import(globalThis.Bun.resolveSync(spec, base));
	counter = 0;
	mgr = await sm.SessionManager.open(file, copyDir, undefined, { initialCwd: process.cwd(), suppressBreadcrumb: true });
}

const roots = mgr.getTree();
const nodes = [];
const stack = [];
for (let i = roots.length - 1; i >= 0; i--) stack.push([roots[i], 0]);
while (stack.length) {
	const [node, depth] = stack.pop();
	nodes.push([node.entry.id ?? null, depth, node.label ?? null]);
	for (let i = node.children.length - 1; i >= 0; i--) stack.push([node.children[i], depth + 1]);
}
const out = JSON.stringify({ roots: roots.length, nodes }) + "\n";
await new Promise(resolve => process.stdout.write(out, () => resolve()));
process.exit(0);
