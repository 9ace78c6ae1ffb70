// Builds a thread of N turns (one run per turn; the model server decides the answer size) through deerflow's runtime in
// DEERFLOW_HOME, as a child process of the bench: node bench/loop/build-thread.mjs <baseUrl> <turns>
// prints one JSON line: { threadId }.
import { loadConfig, requireModel } from "../../dist/config/load.js";
import { runThread } from "../../dist/runtime/run-thread.js";
import { closeShellSessions } from "../../dist/sandbox/run-shell.js";
import { ThreadRuntime } from "../../dist/runtime/thread-runtime.js";

const [baseUrl, turnsArg] = process.argv.slice(2);
process.env.OPENAI_BASE_URL = baseUrl;
const config = loadConfig({ flags: { defaultApproval: "auto-edit", noMemory: true } });
const model = requireModel(config);
let threadId;
for (let i = 0; i < Number(turnsArg); i++) {
  const r = await runThread({ config, model, prompt: `turn ${i}: answer in about two kilobytes`, threadId });
  if (r.status !== "success") throw new Error(`turn ${i} ended ${r.status}`);
  threadId = r.thread_id;
}
await closeShellSessions();
await ThreadRuntime.closeAll();
console.log(JSON.stringify({ threadId }));
