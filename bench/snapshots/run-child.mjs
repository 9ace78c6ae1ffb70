// The runs' side of the snapshot benchmark: deerflow's real runtime in a throwaway DEERFLOW_HOME, each run a new
// thread bound (-w) to one of the given workspaces, in the order given. Run as a child process:
//   node bench/snapshots/run-child.mjs <baseUrl> <plan JSON: [{workspace, label, thread?: "new" | "same"}]>
// prints one JSON line: { label: [per-run ms] }.
import { performance } from "node:perf_hooks";
import { loadConfig, requireModel } from "../../dist/config/load.js";
import { runThread } from "../../dist/runtime/run-thread.js";
import { closeShellSessions } from "../../dist/sandbox/run-shell.js";
import { ThreadRuntime } from "../../dist/runtime/thread-runtime.js";

const [baseUrl, planArg] = process.argv.slice(2);
process.env.OPENAI_BASE_URL = baseUrl;
const config = loadConfig({ flags: { defaultApproval: "auto-edit", noMemory: true } });
const model = requireModel(config);
const threads = new Map();
const out = {};
for (const step of JSON.parse(planArg)) {
  const t0 = performance.now();
  const r = await runThread({
    config,
    model,
    prompt: step.prompt ?? "hi",
    workspace: step.thread === "same" ? undefined : step.workspace,
    threadId: step.thread === "same" ? threads.get(step.workspace) : undefined,
  });
  const ms = performance.now() - t0;
  if (r.status !== "success") throw new Error(`run ended ${r.status}`);
  threads.set(step.workspace, r.thread_id);
  (out[step.label] ??= []).push(ms);
}
await closeShellSessions();
await ThreadRuntime.closeAll();
console.log(JSON.stringify(out));
