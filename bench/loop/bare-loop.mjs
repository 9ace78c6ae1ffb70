// The bare baseline of the loop benchmarks: langchain's createAgent + ChatOpenAI (streaming) + one execa bash tool,
// no middleware, streamed with the same stream modes as deerflow; no checkpointer, or with --sqlite <file> the stock
// SqliteSaver of @langchain/langgraph-checkpoint-sqlite (a new thread per run). Run as a child process:
//   node bench/loop/bare-loop.mjs <baseUrl> <runs> [--sqlite <file>] [--no-warm-up]
// prints one JSON line: { ms: [per-run ms], steps, maxRssKb }. bench/task.mjs runs it once, without a warm-up, as a
// script would.
import { performance } from "node:perf_hooks";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { createAgent, tool } from "langchain";
import { ChatOpenAI } from "@langchain/openai";
import { HumanMessage } from "@langchain/core/messages";
import { z } from "zod";

const [baseUrl, runsArg, ...flags] = process.argv.slice(2);
const sqliteFile = flags.includes("--sqlite") ? flags[flags.indexOf("--sqlite") + 1] : undefined;
const checkpointer = sqliteFile ? (await import("@langchain/langgraph-checkpoint-sqlite")).SqliteSaver.fromConnString(sqliteFile) : undefined;
const cwd = mkdtempSync(join(tmpdir(), "deerflow-bench-bare-"));
const bash = tool(
  async ({ command }) => {
    const r = await execa("bash", ["-c", command], { cwd, reject: false, timeout: 600_000, stdin: "ignore", all: true });
    return `${r.all ?? ""}\n[exit ${r.exitCode}]`;
  },
  { name: "bash", description: "Run a shell command.", schema: z.object({ command: z.string(), description: z.string().optional() }) },
);
const model = new ChatOpenAI({ model: "bench-model", apiKey: "sk-bench", streaming: true, configuration: { baseURL: baseUrl } });
const agent = createAgent({ model, tools: [bash], checkpointer });
let thread = 0;

async function once() {
  const configurable = checkpointer ? { thread_id: `bench-${++thread}` } : undefined;
  const stream = await agent.stream({ messages: [new HumanMessage("run the 20 steps")] }, { streamMode: ["messages", "updates"], recursionLimit: 1000, configurable });
  let steps = 0;
  for await (const [mode, chunk] of stream) if (mode === "updates" && chunk.tools) steps++;
  return steps;
}

if (!flags.includes("--no-warm-up")) await once();
const ms = [];
let steps = 0;
for (let i = 0; i < Number(runsArg); i++) {
  const t0 = performance.now();
  steps = await once();
  ms.push(performance.now() - t0);
}
console.log(JSON.stringify({ ms, steps, maxRssKb: process.resourceUsage().maxRSS }));
