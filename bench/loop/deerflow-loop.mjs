// deerflow's side of the loop benchmark: the real runtime (lead agent with its middleware, SQLite checkpoints, the
// sandboxed bash tool), one new thread per run, in a throwaway DEERFLOW_HOME. Run as a child process:
//   node bench/loop/deerflow-loop.mjs <baseUrl> <runs>
// prints one JSON line: { ms: [per-run ms], steps, maxRssKb }.
import { performance } from "node:perf_hooks";
import { loadConfig, requireModel } from "../../dist/config/load.js";
import { runThread } from "../../dist/runtime/run-thread.js";
import { closeShellSessions } from "../../dist/sandbox/run-shell.js";
import { ThreadRuntime } from "../../dist/runtime/thread-runtime.js";

const [baseUrl, runsArg] = process.argv.slice(2);
process.env.OPENAI_BASE_URL = baseUrl;
const config = loadConfig({ flags: { defaultApproval: "auto-edit", noMemory: true } });
const model = requireModel(config);

async function once() {
  let steps = 0;
  const r = await runThread({
    config,
    model,
    prompt: "run the 20 steps",
    onEvent: (e) => {
      if (e.type === "tool.completed" || e.type === "tool.end") steps++;
    },
  });
  if (r.status !== "success") throw new Error(`run ended ${r.status}`);
  return steps;
}

await once(); // warm-up
const ms = [];
let steps = 0;
for (let i = 0; i < Number(runsArg); i++) {
  const t0 = performance.now();
  steps = await once();
  ms.push(performance.now() - t0);
}
await closeShellSessions();
await ThreadRuntime.closeAll();
console.log(JSON.stringify({ ms, steps, maxRssKb: process.resourceUsage().maxRSS }));
