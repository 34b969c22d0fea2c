#!/usr/bin/env node
// What an agent really sends to its model for a session file, recorded on the wire.
//
//   node wire.mjs [--agent omp183|omp18|omp13|pi|pi16] [--prompt TEXT] [--window N]
//                 [--max-tokens N] [--compact [--method M] [--keep-recent N]] [--timeout S] [--keep DIR] [--no-netns]
//                 [--pretty] FILE
//
// Starts a stand-in model server (OpenAI chat-completions compatible) on 127.0.0.1, points the
// agent at it through a models file in a temporary HOME, and runs the agent non-interactively on
// a COPY of FILE with one new prompt (default "Wire probe."): the agent opens the session, builds
// its context as it does for a real turn, may compact first, and sends its request. Every request
// is recorded and answered with a short valid reply. Prints one JSON document:
//
//   agent        {name, package, version, entry, runtime}
//   isolation    "netns" (a fresh network namespace: only this loopback exists) or "proxy-env"
//                (HTTP(S)_PROXY / ALL_PROXY point at the stand-in, which refuses every other host)
//   model        {provider, id, api, contextWindow, maxTokens} the agent was given
//   requests[]   {i, path, model, stream, maxTokens, systemPrompt[], messages[] (as sent),
//                 view[] ({role, text[], toolCalls[{name, arguments}], toolCallId, images}),
//                 tools[] (names), hasPrompt}
//   main         index of the first request whose last message is the new prompt (null: none)
//   appended[]   the entries the agent appended to the copy ({type, id, parentId, role,
//                customType, ...}), in order
//   compactedFirst  a compaction entry was appended before the new prompt's entry
//   blocked[]    what the agent tried to reach elsewhere (refused; nothing left the machine)
//   exit         {code, signal, timedOut}, stdout, stderr (tails)
//
// The agents (tests/agents, installed by scripts/install-agents.sh):
//   omp183  oh-my-pi 18.3.4's dist/cli.js, the whole 18.3.4 agent (omp183/, Bun)
//   omp18   oh-my-pi 18.2.3 (src/cli.ts, Bun)        omp13  oh-my-pi 13.19.0 (omp13/, Bun)
//   pi      pi 0.73.1 (dist/cli.js, Node)            pi16   pi 1.6.0 (dist/cli.js, Bun)
//
// The stand-in's model is `standin/wire-model`: api openai-completions, no reasoning, text and
// images, contextWindow --window (default 200000), maxTokens --max-tokens (default 8192). On that
// wire a developer message is sent with role "user" (the agents' choice for such an endpoint) and
// a tool result with role "tool".
// --keep DIR keeps the temporary folder (HOME, the copy, the agent's logs) in DIR.
//
// --compact (omp): the agent runs in its RPC mode instead and is told to compact before the prompt
// (its /compact, `session.compact()`), with `compaction.methodOrder` = [--method, default soft:
// an LLM summary] and, with --keep-recent, `compaction.keepRecentTokens` in its config. The
// summary requests come first in requests[] (their messages: what the agent summarizes), then
// the prompt's; `compaction` is the RPC response (firstKeptEntryId, tokensBefore, …). The
// agent's print mode runs no slash command.

import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const NM = path.join(HERE, "node_modules");
const BUN = path.join(NM, ".bin", "bun");
const PROVIDER = "standin";
const MODEL_ID = "wire-model";
const NETNS_MARK = "CONTEXTREE_WIRE_IN_NETNS";

// ---------------------------------------------------------------------------------------------
// arguments
// ---------------------------------------------------------------------------------------------
function die(msg, code = 2) {
	process.stderr.write(`wire: ${msg}\n`);
	process.exit(code);
}
const WITH_VALUE = new Set(["--agent", "--prompt", "--window", "--max-tokens", "--timeout", "--keep", "--method", "--keep-recent"]);
const argv = process.argv.slice(2);
const opts = {};
const pos = [];
for (let i = 0; i < argv.length; i++) {
	const a = argv[i];
	if (!a.startsWith("--")) pos.push(a);
	else if (a.includes("=")) opts[a.slice(2, a.indexOf("="))] = a.slice(a.indexOf("=") + 1);
	else if (WITH_VALUE.has(a)) {
		if (i + 1 >= argv.length) die(`missing value for ${a}`);
		opts[a.slice(2)] = argv[++i];
	} else opts[a.slice(2)] = true;
}
if (opts.help || pos.length !== 1) {
	// The header comment is the help text.
	const lines = fs.readFileSync(fileURLToPath(import.meta.url), "utf8").split("\n");
	let end = 1;
	while (end < lines.length && lines[end].startsWith("//")) end++;
	process.stderr.write(lines.slice(1, end).join("\n") + "\n");
	process.exit(opts.help ? 0 : 2);
}
const intOpt = (name, dflt) => {
	if (opts[name] === undefined) return dflt;
	const n = Number(opts[name]);
	if (!Number.isInteger(n) || n <= 0) die(`--${name} needs a positive integer, not ${opts[name]}`);
	return n;
};
const sessionArg = path.resolve(pos[0]);
if (!fs.existsSync(sessionArg)) die(`no such file: ${pos[0]}`);
const prompt = opts.prompt ?? "Wire probe.";
const window = intOpt("window", 200000);
const maxTokens = intOpt("max-tokens", 8192);
const timeoutMs = intOpt("timeout", 120) * 1000;

// ---------------------------------------------------------------------------------------------
// the agents
// ---------------------------------------------------------------------------------------------
/** omp's print mode (or RPC mode: text null), resuming the copy; no title request, no discovery of the machine's extras. */
const ompArgs = (file, text) => [
	...(text === null ? ["--mode", "rpc"] : ["-p"]),
	"--resume",
	file,
	"--model",
	`${PROVIDER}/${MODEL_ID}`,
	"--no-title",
	"--no-extensions",
	"--no-skills",
	"--no-rules",
	"--no-lsp",
	...(text === null ? [] : [text]),
];
/** pi's print mode on the copy. */
const piArgs = (file, text) => [
	"-p",
	"--session",
	file,
	"--provider",
	PROVIDER,
	"--model",
	MODEL_ID,
	"--no-extensions",
	"--no-skills",
	"--no-prompt-templates",
	"--no-themes",
	"--no-context-files",
	text,
];
const AGENTS = {
	omp183: {
		pkg: "omp183/node_modules/@oh-my-pi/pi-coding-agent",
		entry: "dist/cli.js",
		runtime: "bun",
		modelsFile: ".omp/agent/models.yml",
		args: ompArgs,
	},
	omp18: { pkg: "node_modules/@oh-my-pi/pi-coding-agent", entry: "src/cli.ts", runtime: "bun", modelsFile: ".omp/agent/models.yml", args: ompArgs },
	omp13: {
		pkg: "omp13/node_modules/@oh-my-pi/pi-coding-agent",
		entry: "src/cli.ts",
		runtime: "bun",
		modelsFile: ".omp/agent/models.json",
		args: ompArgs,
	},
	// pi refuses a session whose stored cwd does not exist (the fixtures' never do): the copy's
	// header names the work folder instead (reported as headerCwd; the messages do not depend on it).
	pi: {
		pkg: "node_modules/@mariozechner/pi-coding-agent",
		entry: "dist/cli.js",
		runtime: "node",
		modelsFile: ".pi/agent/models.json",
		args: piArgs,
		needsCwd: true,
	},
	// pi 1.6.0 needs Node >= 22; the machine's Node is 20, Bun runs it (as oracle.mjs does).
	pi16: {
		pkg: "node_modules/@earendil-works/pi-coding-agent",
		entry: "dist/cli.js",
		runtime: "bun",
		modelsFile: ".pi/agent/models.json",
		args: piArgs,
		needsCwd: true,
	},
};
const agentName = opts.agent ?? "omp183";
const agent = AGENTS[agentName];
if (!agent) die(`unknown --agent ${agentName} (${Object.keys(AGENTS).join(", ")})`);
const pkgDir = path.join(HERE, agent.pkg);
if (!fs.existsSync(path.join(pkgDir, agent.entry))) die(`${agent.pkg}/${agent.entry} is not installed (run scripts/install-agents.sh)`);
if (agent.runtime === "bun" && !fs.existsSync(BUN)) die("bun is not installed in node_modules/.bin (run scripts/install-agents.sh)");
const pkgJson = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8"));
const compactFirst = !!opts.compact;
if (compactFirst && agent.args !== ompArgs) die("--compact drives omp's RPC mode (--agent omp183, omp18 or omp13)");

// ---------------------------------------------------------------------------------------------
// isolation: re-run inside a fresh network namespace when the machine allows it
// ---------------------------------------------------------------------------------------------
function netnsUsable() {
	if (process.env[NETNS_MARK] || opts["no-netns"]) return false;
	const probe = spawnSync("unshare", ["-rn", "sh", "-c", "ip link set lo up"], { stdio: "ignore" });
	return probe.status === 0;
}
if (netnsUsable()) {
	// Everything runs in there: the stand-in, the agent and its children. Only loopback exists,
	// so nothing can leave the machine whatever the agent tries.
	const r = spawnSync("unshare", ["-rn", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', process.execPath, ...process.argv.slice(1)], {
		stdio: "inherit",
		env: { ...process.env, [NETNS_MARK]: "1" },
	});
	process.exit(r.status ?? 1);
}
const isolation = process.env[NETNS_MARK] ? "netns" : "proxy-env";

// ---------------------------------------------------------------------------------------------
// the stand-in model server
// ---------------------------------------------------------------------------------------------
const requests = [];
const blocked = [];
const other = [];
let port = 0;

/** The reply to a chat request: one short text, a stop, a small usage. */
function reply(res, body, n) {
	const text = `Stand-in reply ${n}.`;
	const usage = { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 };
	if (!body.stream) {
		res.writeHead(200, { "content-type": "application/json" });
		res.end(
			JSON.stringify({
				id: `wire-${n}`,
				object: "chat.completion",
				created: 0,
				model: body.model,
				choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
				usage,
			}),
		);
		return;
	}
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
	const chunk = (delta, finish, extra = {}) =>
		`data: ${JSON.stringify({ id: `wire-${n}`, object: "chat.completion.chunk", created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
	res.write(chunk({ role: "assistant", content: text }, null));
	res.write(chunk({}, "stop", { usage }));
	res.end("data: [DONE]\n\n");
}

const server = http.createServer((req, res) => {
	const chunks = [];
	req.on("data", c => chunks.push(c));
	req.on("end", () => {
		const raw = Buffer.concat(chunks).toString("utf8");
		// A request for another host came through the proxy variables: refuse it.
		if (/^https?:\/\//.test(req.url) && !req.url.startsWith(`http://127.0.0.1:${port}/`)) {
			blocked.push(`${req.method} ${req.url}`);
			res.writeHead(403);
			res.end();
			return;
		}
		const url = req.url.replace(/^http:\/\/127\.0\.0\.1:\d+/, "");
		if (req.method === "POST" && url.endsWith("/chat/completions")) {
			let body;
			try {
				body = JSON.parse(raw);
			} catch {
				other.push({ method: req.method, url, error: "body is not JSON" });
				res.writeHead(400);
				res.end();
				return;
			}
			requests.push({ path: url, body });
			reply(res, body, requests.length);
		} else if (req.method === "GET" && url.endsWith("/models")) {
			res.writeHead(200, { "content-type": "application/json" });
			res.end(JSON.stringify({ object: "list", data: [{ id: MODEL_ID, object: "model", owned_by: PROVIDER }] }));
		} else {
			other.push({ method: req.method, url });
			res.writeHead(404);
			res.end();
		}
	});
});
server.on("connect", (req, socket) => {
	socket.on("error", () => {});
	blocked.push(`CONNECT ${req.url}`);
	socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
});
server.on("clientError", (_err, socket) => socket.destroy());
await new Promise(resolve => server.listen(0, "127.0.0.1", resolve));
port = server.address().port;

// ---------------------------------------------------------------------------------------------
// the agent's world: a temporary HOME with the models file, a work folder, the copy
// ---------------------------------------------------------------------------------------------
const root = opts.keep ? path.resolve(String(opts.keep)) : fs.mkdtempSync(path.join(os.tmpdir(), "ct-wire-"));
fs.mkdirSync(root, { recursive: true });
const home = path.join(root, "home");
const work = path.join(root, "work");
const copy = path.join(root, "session", path.basename(sessionArg));
for (const d of [home, work, path.dirname(copy)]) fs.mkdirSync(d, { recursive: true });
fs.copyFileSync(sessionArg, copy);
let headerCwd = null;
if (agent.needsCwd) headerCwd = pointHeaderAt(copy, work);
const original = fs.readFileSync(copy);

/** Replaces the header's cwd by `dir` when it names a folder that does not exist; returns the old one. */
function pointHeaderAt(file, dir) {
	const bytes = fs.readFileSync(file, "utf8");
	const nl = bytes.indexOf("\n");
	const first = nl < 0 ? bytes : bytes.slice(0, nl);
	let header;
	try {
		header = JSON.parse(first);
	} catch {
		return null;
	}
	if (header?.type !== "session" || typeof header.cwd !== "string" || fs.existsSync(header.cwd)) return null;
	const old = header.cwd;
	header.cwd = dir;
	fs.writeFileSync(file, JSON.stringify(header) + (nl < 0 ? "" : bytes.slice(nl)));
	return { from: old, to: dir };
}

const modelsPath = path.join(home, agent.modelsFile);
fs.mkdirSync(path.dirname(modelsPath), { recursive: true });
const model = {
	id: MODEL_ID,
	name: "contextree wire stand-in",
	reasoning: false,
	input: ["text", "image"],
	contextWindow: window,
	maxTokens,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};
// JSON is valid YAML, so one text serves models.json and models.yml.
fs.writeFileSync(
	modelsPath,
	JSON.stringify(
		{
			providers: {
				[PROVIDER]: {
					baseUrl: `http://127.0.0.1:${port}/v1`,
					apiKey: "wire-no-key",
					api: "openai-completions",
					models: [model],
				},
			},
		},
		null,
		2,
	),
);

if (compactFirst) {
	const method = String(opts.method ?? "soft");
	const compaction = { methodOrder: [method] };
	if (opts["keep-recent"] !== undefined) compaction.keepRecentTokens = intOpt("keep-recent", 20000);
	fs.writeFileSync(path.join(path.dirname(modelsPath), "config.yml"), JSON.stringify({ compaction }));
}

const proxy = `http://127.0.0.1:${port}`;
const env = {
	PATH: process.env.PATH,
	HOME: home,
	USER: "wire",
	LANG: "C.UTF-8",
	TZ: "UTC",
	TERM: "dumb",
	NO_COLOR: "1",
	TMPDIR: path.join(root, "tmp"),
	XDG_CONFIG_HOME: path.join(home, ".config"),
	XDG_CACHE_HOME: path.join(home, ".cache"),
	XDG_DATA_HOME: path.join(home, ".local/share"),
	XDG_STATE_HOME: path.join(home, ".local/state"),
	// Everything that is not the stand-in goes to the stand-in, which refuses it.
	HTTP_PROXY: proxy,
	HTTPS_PROXY: proxy,
	ALL_PROXY: proxy,
	http_proxy: proxy,
	https_proxy: proxy,
	all_proxy: proxy,
	NO_PROXY: "127.0.0.1,localhost",
	no_proxy: "127.0.0.1,localhost",
	// pi: no startup network (update checks, telemetry)
	PI_OFFLINE: "1",
	// no OpenTelemetry export
	OTEL_SDK_DISABLED: "true",
};
fs.mkdirSync(env.TMPDIR, { recursive: true });

const runtime = agent.runtime === "bun" ? BUN : process.execPath;
const cmd = [runtime, path.join(pkgDir, agent.entry), ...agent.args(copy, compactFirst ? null : prompt)];
const child = spawn(cmd[0], cmd.slice(1), { cwd: work, env, stdio: [compactFirst ? "pipe" : "ignore", "pipe", "pipe"], detached: true });
let stdout = "";
let stderr = "";
let compaction = null;
child.stdout.on("data", d => (stdout += d));
child.stderr.on("data", d => (stderr += d));
if (compactFirst) driveRpc(child).catch(err => (stderr += `\nwire: RPC: ${err.message}`));

/**
 * omp's RPC mode, one JSON object a line each way: after `ready`, `compact`; after its response,
 * `prompt`; after the prompt's run ends (`agent_end`), stdin closes and the agent exits.
 */
async function driveRpc(proc) {
	const send = obj => proc.stdin.write(JSON.stringify(obj) + "\n");
	let buffered = "";
	const waiters = [];
	proc.stdout.on("data", d => {
		buffered += d;
		let nl;
		while ((nl = buffered.indexOf("\n")) >= 0) {
			const line = buffered.slice(0, nl);
			buffered = buffered.slice(nl + 1);
			let msg;
			try {
				msg = JSON.parse(line);
			} catch {
				continue;
			}
			for (const w of waiters.splice(0)) if (!w(msg)) waiters.push(w);
		}
	});
	const next = test => new Promise(resolve => waiters.push(msg => (test(msg) ? (resolve(msg), true) : false)));
	await next(m => m.type === "ready");
	send({ id: "wire-compact", type: "compact" });
	const done = await next(m => m.type === "response" && m.id === "wire-compact");
	compaction = done.success ? (done.data ?? null) : { error: done.error ?? "compact failed" };
	if (compaction && typeof compaction.summary === "string") compaction = { ...compaction, summary: `${compaction.summary.length} chars` };
	send({ id: "wire-prompt", type: "prompt", message: prompt });
	await next(m => m.type === "agent_end");
	proc.stdin.end();
}
let timedOut = false;
const timer = setTimeout(() => {
	timedOut = true;
	try {
		process.kill(-child.pid, "SIGKILL");
	} catch {}
}, timeoutMs);
const exit = await new Promise(resolve => child.on("close", (code, signal) => resolve({ code, signal, timedOut })));
clearTimeout(timer);
// The agent's helpers (its process group) go with it.
try {
	process.kill(-child.pid, "SIGKILL");
} catch {}
server.close();

// ---------------------------------------------------------------------------------------------
// the report
// ---------------------------------------------------------------------------------------------
/** The text of an OpenAI content value: a string, or the text parts of an array. */
function texts(content) {
	if (content == null) return [];
	if (typeof content === "string") return [content];
	return content.filter(p => p.type === "text").map(p => p.text);
}
function view(m) {
	const v = { role: m.role, text: texts(m.content) };
	if (Array.isArray(m.content)) {
		const images = m.content.filter(p => p.type === "image_url").length;
		if (images) v.images = images;
	}
	if (m.tool_calls) v.toolCalls = m.tool_calls.map(c => ({ name: c.function?.name, arguments: c.function?.arguments }));
	if (m.tool_call_id !== undefined) v.toolCallId = m.tool_call_id;
	return v;
}
const described = requests.map(({ path: p, body }, i) => {
	const messages = body.messages ?? [];
	let s = 0;
	while (s < messages.length && (messages[s].role === "system" || (s === 0 && messages[s].role === "developer"))) s++;
	const rest = messages.slice(s);
	const last = rest[rest.length - 1];
	return {
		i,
		path: p,
		model: body.model,
		stream: !!body.stream,
		maxTokens: body.max_completion_tokens ?? body.max_tokens ?? null,
		systemPrompt: messages.slice(0, s).map(m => texts(m.content).join("")),
		messages: rest,
		view: rest.map(view),
		tools: (body.tools ?? []).map(t => t.function?.name ?? t.name ?? null),
		hasPrompt: !!last && last.role === "user" && texts(last.content).some(t => t.includes(prompt)),
	};
});
const mainIndex = described.findIndex(r => r.hasPrompt);

/** The entries after the original bytes, one JSON value a line (a rewritten copy: all of them). */
function appendedEntries() {
	const now = fs.readFileSync(copy);
	const grew = now.length >= original.length && now.subarray(0, original.length).equals(original);
	const tail = grew ? now.subarray(original.length).toString("utf8") : now.toString("utf8");
	const out = [];
	for (const line of tail.split("\n")) {
		if (!line.trim()) continue;
		let e;
		try {
			e = JSON.parse(line);
		} catch {
			out.push({ unparsed: line.slice(0, 200) });
			continue;
		}
		const row = { type: e.type, id: e.id ?? null, parentId: e.parentId ?? null };
		if (e.type === "message") {
			row.role = e.message?.role;
			if (e.message?.role === "user") row.text = texts(e.message.content).join("").slice(0, 200);
		}
		if (e.customType !== undefined) row.customType = e.customType;
		if (e.type === "compaction") {
			for (const k of ["firstKeptEntryId", "tokensBefore", "providerReplayThroughEntryId"]) if (e[k] !== undefined) row[k] = e[k];
			row.summaryChars = typeof e.summary === "string" ? e.summary.length : null;
		}
		out.push(row);
	}
	return { rewritten: !grew, entries: out };
}
const appended = appendedEntries();
const promptAt = appended.entries.findIndex(e => e.type === "message" && e.role === "user" && (e.text ?? "").includes(prompt));
const compactedFirst = appended.entries.slice(0, promptAt < 0 ? appended.entries.length : promptAt).some(e => e.type === "compaction");

const tail = s => (s.length > 4000 ? `…${s.slice(-4000)}` : s);
const report = {
	wire: 1,
	agent: { name: agentName, package: pkgJson.name, version: pkgJson.version, entry: `${agent.pkg}/${agent.entry}`, runtime: agent.runtime === "bun" ? "bun" : `node ${process.version}` },
	isolation,
	session: { file: path.basename(sessionArg), bytes: fs.statSync(sessionArg).size },
	headerCwd,
	prompt,
	model: { provider: PROVIDER, id: MODEL_ID, api: "openai-completions", contextWindow: window, maxTokens },
	exit,
	main: mainIndex < 0 ? null : mainIndex,
	...(compactFirst ? { compaction } : {}),
	compactedFirst,
	appended: appended.entries,
	fileRewritten: appended.rewritten,
	requests: described,
	blocked,
	other,
	stdout: tail(stdout),
	stderr: tail(stderr),
};
if (!opts.keep) fs.rmSync(root, { recursive: true, force: true });
const text = opts.pretty ? JSON.stringify(report, null, 2) : JSON.stringify(report);
await new Promise(resolve => process.stdout.write(text + "\n", resolve));
process.exit(exit.code === 0 && mainIndex >= 0 ? 0 : 1);
