// What ArtifactCapture costs a long tool-calling thread in delta checkpoints: its scan-once ledger
// (`tool_artifact_processed`) and its entries are stored with the thread. A 200-turn thread (one run per turn: a
// tool call returning 2 KB with a long path, then an answer) through createDeerflowAgent on a real SQLite file,
// delta mode; baseline: the same thread without ArtifactCapture, in the same run. Also the request-time cost of
// showing handles (withHandles) on a 400-message history with 100 handles.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel, tool } from "langchain";
import { z } from "zod";
import { createDeerflowAgent } from "../dist/agent/create-deerflow-agent.js";
import { artifactCaptureMiddleware, captureArtifacts, withHandles } from "../dist/middleware/artifact-capture.js";
import { DeerflowSqliteSaver } from "../dist/persistence/sqlite-saver.js";

const TURNS = Number(process.env.BENCH_ARTIFACT_TURNS ?? 200);
const LONG = (i) => `/mnt/user-data/workspace/${"a-long-directory-name/".repeat(6)}file-${i}.txt`;

function storedBytes(db) {
  const q = (sql) => db.prepare(sql).get().n ?? 0;
  return q("SELECT SUM(length(checkpoint) + length(metadata)) AS n FROM checkpoints") + q("SELECT SUM(length(value)) AS n FROM writes") + q("SELECT SUM(length(value)) AS n FROM checkpoint_blobs");
}

async function runOne(withCapture) {
  const dir = mkdtempSync(join(tmpdir(), "deerflow-bench-artifacts-"));
  try {
    let model = fakeModel();
    for (let i = 0; i < TURNS; i++) {
      model = model.respond(new AIMessage({ id: `a${i}`, content: "", tool_calls: [{ id: `c${i}`, name: "find", args: { n: i } }] }));
      model = model.respond(new AIMessage({ id: `b${i}`, content: `found ${i}` }));
    }
    const find = tool(async ({ n }) => `${LONG(n)}\n${"x".repeat(2048)}`, { name: "find", description: "find", schema: z.object({ n: z.number() }) });
    const saver = DeerflowSqliteSaver.open(join(dir, "deerflow.sqlite"), { channelMode: "delta" });
    const agent = createDeerflowAgent(model, [find], {
      features: { sandbox: false },
      extraMiddleware: withCapture ? [artifactCaptureMiddleware()] : [],
      checkpointChannelMode: "delta",
      checkpointer: saver,
    });
    const config = { configurable: { thread_id: "bench" } };
    const t0 = performance.now();
    for (let i = 0; i < TURNS; i++) await agent.invoke({ messages: [new HumanMessage(`turn ${i}`)] }, config);
    const ms = performance.now() - t0;
    const bytes = storedBytes(saver.db);
    saver.close();
    return { bytes, ms };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchArtifacts() {
  const without = await runOne(false);
  const withC = await runOne(true);
  const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
  console.log(`\n## ArtifactCapture: ${TURNS}-turn tool-calling thread, delta checkpoints`);
  console.log("| | stored | time |");
  console.log("|---|---|---|");
  console.log(`| without | ${kb(without.bytes)} | ${(without.ms / 1000).toFixed(1)} s |`);
  console.log(`| with | ${kb(withC.bytes)} | ${(withC.ms / 1000).toFixed(1)} s |`);
  console.log(`stored with / without = ${((withC.bytes / without.bytes) * 100).toFixed(1)}%; time with / without = ${((withC.ms / without.ms) * 100).toFixed(0)}%`);
  const refs = Array.from({ length: 100 }, (_, i) => LONG(i));
  const entries = captureArtifacts([new ToolMessage({ id: "x", content: refs.join("\n"), tool_call_id: "c" })], [], [], 120).tool_artifacts;
  const history = Array.from(
    { length: 400 },
    (_, i) => new ToolMessage({ id: `m${i}`, content: `${"lorem ipsum /usr/lib/x ".repeat(220)}${i % 10 === 0 ? refs[i % 100] : ""}`, tool_call_id: `c${i}` }),
  );
  const times = [];
  for (let k = 0; k < 7; k++) {
    const t = performance.now();
    withHandles(history, entries);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`handles shown in a 400-message (2 MB) request with 100 handles: median ${times[3].toFixed(1)} ms per model call`);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchArtifacts();
