// Tokens sent per turn over a long conversation, with and without compaction, and what compaction costs.
// A 400-turn thread (one run per turn: a user message and a 5 KB reply) through createDeerflowAgent, a 32k window,
// the archive in a real SQLite file. Tokens are estimated like the middleware does (chars / 4) from the messages
// each model call received; the summary calls' input and output are counted separately. Baseline: the same thread
// without compaction, in the same run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "langchain";
import { createDeerflowAgent } from "../dist/agent/create-deerflow-agent.js";
import { summarizationMiddleware } from "../dist/middleware/summarization.js";
import { messagesTokens } from "../dist/middleware/util/compaction-selection.js";
import { MessageArchive } from "../dist/persistence/message-archive.js";
import { DeerflowSqliteSaver } from "../dist/persistence/sqlite-saver.js";

const TURNS = Number(process.env.BENCH_COMPACTION_TURNS ?? 400);
const WINDOW = 32_768;
const REPLY = "x".repeat(5 * 1024);

async function runOne(compact) {
  const dir = mkdtempSync(join(tmpdir(), "deerflow-bench-compaction-"));
  try {
    let model = fakeModel();
    for (let i = 0; i < TURNS; i++) model = model.respond(new AIMessage(`${i}:${REPLY}`));
    let side = fakeModel();
    const summaries = Array.from({ length: TURNS }, (_, i) => `Summary ${i}: the user sent numbered turns and got long replies. `.repeat(8));
    for (const text of summaries) side = side.respond(new AIMessage(text));
    const saver = DeerflowSqliteSaver.open(join(dir, "deerflow.sqlite"), { channelMode: "full" });
    const compactions = [];
    const summarization = compact ? summarizationMiddleware({ model: side, contextWindow: WINDOW, archive: new MessageArchive(saver.db), onCompacted: (i) => compactions.push(i) }) : false;
    const agent = createDeerflowAgent(model, [], { features: { sandbox: false, summarization }, checkpointer: saver });
    const config = { configurable: { thread_id: "bench" } };
    const t0 = performance.now();
    for (let i = 0; i < TURNS; i++) await agent.invoke({ messages: [new HumanMessage(`turn ${i}`)] }, config);
    const ms = performance.now() - t0;
    saver.close();
    const sent = model.calls.map((c) => messagesTokens(c.messages));
    const summaryIn = side.calls.slice(0, compactions.length).reduce((n, c) => n + messagesTokens(c.messages), 0);
    const summaryOut = summaries.slice(0, compactions.length).reduce((n, t) => n + messagesTokens([new AIMessage(t)]), 0);
    return { sent, compactions: compactions.length, summaryIn, summaryOut, ms };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchCompaction() {
  const without = await runOne(false);
  const withC = await runOne(true);
  const at = (r, n) => r.sent[Math.min(n, r.sent.length) - 1];
  const total = (r) => r.sent.reduce((a, b) => a + b, 0);
  console.log(`\n## Compaction: ${TURNS}-turn thread, 5 KB replies, ${WINDOW / 1024}k window (tokens sent per model call, estimated)`);
  console.log("| | turn 10 | turn 100 | turn 200 | turn " + TURNS + " | max | total sent | summary calls | summary input | summary output | time |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const [name, r] of [
    ["without", without],
    ["with", withC],
  ]) {
    console.log(
      `| ${name} | ${at(r, 10)} | ${at(r, 100)} | ${at(r, 200)} | ${at(r, TURNS)} | ${Math.max(...r.sent)} | ${total(r)} | ${r.compactions} | ${r.summaryIn} | ${r.summaryOut} | ${(r.ms / 1000).toFixed(1)} s |`,
    );
  }
  const cost = withC.summaryIn + withC.summaryOut;
  console.log(
    `with / without at turn ${TURNS} = ${((at(withC, TURNS) / at(without, TURNS)) * 100).toFixed(1)}%; compaction calls cost ${cost} tokens (${withC.compactions ? Math.round(cost / withC.compactions) : 0} per call); total incl. compaction calls = ${(((total(withC) + cost) / total(without)) * 100).toFixed(1)}% of without; max with = ${((Math.max(...withC.sent) / WINDOW) * 100).toFixed(0)}% of the window`,
  );
  return { without, with: withC };
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCompaction();
