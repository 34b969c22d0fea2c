// Regenerates the columns of overflow.json: runs the agents' own isContextOverflow over its messages.
//   node run.mjs pi        > /tmp/pi.json      (pi-ai of pi 0.73.1, Node)
//   bun  run.mjs omp13     > /tmp/omp.json     (pi-ai of oh-my-pi 13.19.0, TypeScript: Bun)
//   bun  run.mjs pi16      > /tmp/pi16.json    (pi-ai of pi 1.6.0, @earendil-works/pi-ai/compat; no provider,
//                                                so its Cerebras-only no-body pattern is not tried)
//   bun  run.mjs omp18     > /tmp/omp18.json   (pi-ai of oh-my-pi 18.2.3: AIError.isContextOverflow)
//   bun  run.mjs omp18-payload > /tmp/p.json   (pi-ai of oh-my-pi 18.2.3: AIError.isPayloadRejection)
// Each prints a JSON array of booleans, one per message, in file order. The agents are those of
// tests/agents (ORACLE=DIR for another installed copy); bun is its node_modules/.bin/bun.
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
const rows = JSON.parse(readFileSync(new URL("./overflow.json", import.meta.url)));
const impl = process.argv[2];
const agents = process.env.ORACLE ?? path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "agents");
const nm = path.join(agents, "node_modules");
const mod =
  impl === "pi"
    ? await import(path.join(nm, "@mariozechner/pi-ai/dist/utils/overflow.js"))
    : impl === "pi16"
      ? await import(path.join(nm, "@earendil-works/pi-ai/dist/compat.js"))
    : impl === "omp13"
      ? await import(path.join(agents, "omp13/node_modules/@oh-my-pi/pi-ai/src/utils/overflow.ts"))
      : await import(path.join(nm, "@oh-my-pi/pi-ai/src/error/index.ts"));
// Zero usage and no window: only the error-message patterns decide (no errorId either).
const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
const msg = (r) => ({ role: "assistant", stopReason: "error", errorMessage: r.message, usage });
const out = rows.map((r) =>
  impl === "omp18-payload" ? mod.isPayloadRejection(msg(r)) : mod.isContextOverflow(msg(r), 0),
);
console.log(JSON.stringify(out));
