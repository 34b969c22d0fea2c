// Regenerates overflow.json: runs the agents' own isContextOverflow over its messages.
//   node run.mjs pi    > /tmp/pi.json   (pi-ai of pi 0.73.1, Node)
//   bun  run.mjs omp13 > /tmp/omp.json  (pi-ai of oh-my-pi 13.19.0, TypeScript: Bun)
// Each prints a JSON array of booleans, one per message, in file order.
import { readFileSync } from "node:fs";
const rows = JSON.parse(readFileSync(new URL("./overflow.json", import.meta.url)));
const impl = process.argv[2];
const mod = impl === "pi"
  ? await import("/work/oracle/node_modules/@mariozechner/pi-ai/dist/utils/overflow.js")
  : await import("/work/oracle/omp13/node_modules/@oh-my-pi/pi-ai/src/utils/overflow.ts");
// Zero usage and no window: only the error-message patterns decide.
const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
const out = rows.map((r) => mod.isContextOverflow({ role: "assistant", stopReason: "error", errorMessage: r.message, usage }, 0));
console.log(JSON.stringify(out));
