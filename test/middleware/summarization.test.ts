// Summarization through a real agent graph: the loopback OpenAI server records every request, the checkpoints and
// the archive are a real SQLite file, in both channel modes. A long tool-heavy conversation never sends more than
// the window; the first and latest user messages, the reminder and every tool-call pair reach each request; the
// originals are archived and read back with read_history; the compacted thread resumes in a new process-like
// agent (a new saver on the same file) and rolls back to before a compaction.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { tool } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createDeerflowAgent } from "../../src/agent/create-deerflow-agent.js";
import { nextTo } from "../../src/agent/anchors.js";
import { dynamicContextMiddleware } from "../../src/middleware/dynamic-context.js";
import { SUMMARY_PROMPT, summarizationMiddleware, type CompactionInfo } from "../../src/middleware/summarization.js";
import { MessageArchive } from "../../src/persistence/message-archive.js";
import { DeerflowSqliteSaver } from "../../src/persistence/sqlite-saver.js";
import { createReadHistoryTool } from "../../src/tools/read-history.js";
import { SUMMARY_KIND, hiddenKind } from "../../src/vocabulary/message-markers.js";
import { type RecordedRequest, type ScriptedReply, startTestModelServer } from "../support/openai-server.js";

const WINDOW = 8000;
const dirs: string[] = [];
const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const textOf = (m: any) => (typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.map((b: any) => b?.text ?? "").join("") : "");
const isSummaryCall = (r: RecordedRequest) => r.body.messages?.[0]?.role === "system" && textOf(r.body.messages[0]).startsWith(SUMMARY_PROMPT.slice(0, 40));
/** Deterministic 2–8 KB tool output, unique per call (so a search finds one). */
const output = (i: number) => `FILE-${i} ` + "x".repeat(2000 + ((i * 2654435761) % 6000));

async function setup(mode: "full" | "delta", summaryReply: (r: RecordedRequest) => ScriptedReply = () => ({ content: "Summary: the user asked to read files; files were read." })) {
  const home = mkdtempSync(join(tmpdir(), "deerflow-sum-"));
  dirs.push(home);
  let step = 0;
  const server = await startTestModelServer((req) => {
    if (isSummaryCall(req)) return summaryReply(req);
    const last = req.body.messages.at(-1);
    const text = textOf(last);
    if (last.role === "user" && text.startsWith("recall")) return { toolCalls: [{ name: "read_history", args: { search: "FILE-3 " } }] };
    if (last.role === "tool" && /Archived|archived message/.test(text)) return { content: `recalled: ${text.includes("FILE-3 ") ? "FILE-3" : "nothing"}` };
    if (last.role === "user") step = 0;
    step += 1;
    return step <= 12 ? { toolCalls: [{ name: "read", args: { n: Number(text.match(/\d+/)?.[0] ?? 0) * 100 + step } }] } : { content: "done" };
  });
  closers.push(() => server.close());
  const open = () => {
    const saver = DeerflowSqliteSaver.open(join(home, "db.sqlite"), { channelMode: mode });
    closers.push(() => saver.close());
    const archive = new MessageArchive(saver.db);
    const chat = (streaming: boolean) => new ChatOpenAI({ model: "test-model", apiKey: "k", configuration: { baseURL: server.url }, useResponsesApi: false, streaming, maxRetries: 0 });
    const compactions: CompactionInfo[] = [];
    const read = tool(async ({ n }: { n: number }) => output(n), { name: "read", description: "read", schema: z.object({ n: z.number() }) });
    // The typed graph with a custom middleware's state infers `never` for invoke's input; the test drives it untyped.
    const agent: any = createDeerflowAgent(chat(false), [read, createReadHistoryTool(archive)], {
      features: {
        sandbox: false,
        summarization: summarizationMiddleware({ model: chat(false), contextWindow: WINDOW, keepRecentTokens: 2500, reserveTokens: 800, archive, onCompacted: (i) => compactions.push(i) }),
      },
      extraMiddleware: [nextTo("DanglingToolCall", dynamicContextMiddleware({ home, workspace: home }))],
      systemPrompt: "You are a test agent.",
      checkpointer: saver,
      checkpointChannelMode: mode,
    });
    return { saver, archive, agent, compactions };
  };
  return { server, open, home };
}

const cfg = { configurable: { thread_id: "t1" }, recursionLimit: 500 };

function checkRequest(r: RecordedRequest, firstUser: string, latestUser: string) {
  const msgs = r.body.messages as any[];
  expect(JSON.stringify(msgs).length / 4).toBeLessThan(WINDOW);
  const users = msgs.filter((m) => m.role === "user").map(textOf);
  expect(users).toContain(firstUser);
  expect(users).toContain(latestUser);
  expect(textOf(msgs[1])).toContain("<system-reminder>"); // the dated reminder right after the system prompt
  // Every call answered right after it, every result answering the call before it.
  for (let i = 0; i < msgs.length; i++) {
    const ids = (msgs[i].tool_calls ?? []).map((c: any) => c.id);
    if (ids.length) expect(msgs.slice(i + 1, i + 1 + ids.length).map((m) => m.tool_call_id)).toEqual(ids);
    if (msgs[i].role === "tool") {
      const owner = msgs
        .slice(0, i)
        .reverse()
        .find((m) => m.role === "assistant");
      expect(owner.tool_calls.map((c: any) => c.id)).toContain(msgs[i].tool_call_id);
    }
  }
}

describe.each(["full", "delta"] as const)("Summarization (%s checkpoints)", (mode) => {
  it("keeps every request inside the window with its invariants, archives the originals, resumes and rolls back", async () => {
    const { server, open } = await setup(mode);
    const a = open();
    const inputs = ["task 1: read the files", "task 2 read more", "task 3 read more", "task 4 read more"];
    let mark = a.saver.mark();
    for (const [i, text] of inputs.entries()) {
      if (i === 3) mark = a.saver.mark();
      await a.agent.invoke({ messages: [new HumanMessage(text)] }, cfg);
    }
    const turns = server.requests.filter((r) => !isSummaryCall(r));
    expect(turns.length).toBe(4 * 13);
    expect(a.compactions.length).toBeGreaterThan(2);
    let latest = inputs[0]!;
    for (const r of turns) {
      const u = (r.body.messages as any[]).filter((m) => m.role === "user").map(textOf);
      latest = inputs.find((t) => u.includes(t) && inputs.indexOf(t) >= inputs.indexOf(latest)) ?? latest;
      latest = [...inputs].reverse().find((t) => u.includes(t))!;
      checkRequest(r, inputs[0]!, latest);
    }
    // The summary sits right after the reminder, and the summary call folded the previous one in.
    const last = turns.at(-1)!.body.messages as any[];
    expect(textOf(last[2])).toContain("Summary of the earlier conversation");
    const summaryCalls = server.requests.filter(isSummaryCall);
    expect(textOf(summaryCalls.at(-1)!.body.messages[1])).toContain("Previous summary:");

    // State: summary_text and task_history written; the originals in the archive.
    const state = (await a.agent.getState(cfg)).values as { messages: BaseMessage[]; summary_text: string; task_history: { archived: number } };
    expect(state.summary_text).toContain("files were read");
    expect(state.messages.filter((m) => hiddenKind(m) === SUMMARY_KIND)).toHaveLength(1);
    expect(state.task_history.archived).toBe(a.archive.count("t1"));
    expect(a.archive.search("t1", "FILE-101 ", 5).length).toBe(1);
    const total = state.messages.length + a.archive.count("t1");
    expect(total).toBeGreaterThan(4 * 26);

    // Resume with a new saver on the same file: the model reads an archived message back.
    a.saver.close();
    const b = open();
    await b.agent.invoke({ messages: [new HumanMessage("recall FILE-3")] }, cfg);
    const resumed = (await b.agent.getState(cfg)).values as { messages: BaseMessage[] };
    const toolResult = resumed.messages.find((m) => m.getType() === "tool" && String(m.content).includes("archived message"));
    expect(String(toolResult?.content)).toContain("FILE-3 ");
    expect(String(resumed.messages.at(-1)!.content)).toBe("recalled: FILE-3");

    // Roll back to before task 4 (which compacted): the thread is as it was, summary and all.
    b.saver.rollbackTo("t1", mark);
    const rolled = (await b.agent.getState(cfg)).values as { messages: BaseMessage[] };
    const users = rolled.messages.filter((m) => m.getType() === "human" && hiddenKind(m) === undefined).map((m) => String(m.content));
    expect(users).toContain("task 3 read more");
    expect(users).not.toContain("task 4 read more");
    await b.agent.invoke({ messages: [new HumanMessage("task 5 read more")] }, cfg);
    checkRequest(server.requests.filter((r) => !isSummaryCall(r)).at(-1)!, inputs[0]!, "task 5 read more");
  }, 120_000);

  it("a summary call that fails or answers garbage loses nothing and the run goes on", async () => {
    let n = 0;
    const { server, open } = await setup(mode, () => (++n % 2 === 1 ? { status: 400, error: "summary refused" } : { content: "   \n\u0000 !!" }));
    const a = open();
    for (const text of ["task 1: read", "task 2 read"]) await a.agent.invoke({ messages: [new HumanMessage(text)] }, cfg);
    expect(a.compactions.length).toBeGreaterThan(1);
    expect(a.compactions.every((c) => c.summary_failed)).toBe(true);
    const state = (await a.agent.getState(cfg)).values as { messages: BaseMessage[]; summary_text: string };
    expect(state.summary_text).toMatch(/archived unsummarized; read them with read_history/);
    expect(String(state.messages.at(-1)!.content)).toBe("done");
    // Every original is somewhere: in the thread or in the archive.
    expect(state.messages.length + a.archive.count("t1")).toBeGreaterThanOrEqual(2 * 26);
    for (const r of server.requests.filter((r) => !isSummaryCall(r))) expect(JSON.stringify(r.body.messages).length / 4).toBeLessThan(WINDOW);
  }, 120_000);

  it("forks from a checkpoint before a compaction: the branch has the originals, the main line keeps its summary, the summary call's tokens count", async () => {
    const { open } = await setup(mode);
    const a = open();
    await a.agent.invoke({ messages: [new HumanMessage("task 1: read the files")] }, cfg);
    const history: any[] = [];
    for await (const snap of a.agent.graph.getStateHistory(cfg)) history.push(snap);
    await a.agent.invoke({ messages: [new HumanMessage("task 2 read more")] }, cfg);
    expect(a.compactions.length).toBeGreaterThan(0);
    // The summary calls' tokens are in the thread's usage (this stack has no TokenUsage middleware, so they are all of it).
    const head = (await a.agent.getState(cfg)).values as { thread_usage: { total_tokens: number } };
    const summaryTokens = a.compactions.reduce((n, c) => n + (c.summary_usage?.total_tokens ?? 0), 0);
    expect(summaryTokens).toBeGreaterThan(0);
    expect(head.thread_usage.total_tokens).toBe(summaryTokens);

    // Fork from the end of task 1 (history[0]: its last checkpoint), before task 2's compactions.
    const before = history[0];
    const forkCfg = { configurable: { thread_id: "t1", checkpoint_id: before.config.configurable.checkpoint_id }, recursionLimit: 500 };
    const forked = (await a.agent.graph.getState(forkCfg)).values as { messages: BaseMessage[] };
    const forkSummaries = forked.messages.filter((m) => hiddenKind(m) === SUMMARY_KIND).length;
    await a.agent.invoke({ messages: [new HumanMessage("task B on the fork")] }, forkCfg);
    const branch = (await a.agent.getState(cfg)).values as { messages: BaseMessage[] };
    const users = branch.messages.filter((m) => m.getType() === "human" && hiddenKind(m) === undefined).map((m) => String(m.content));
    expect(users).toContain("task B on the fork");
    expect(users).not.toContain("task 2 read more");
    expect(String(branch.messages.at(-1)!.content)).toBe("done");
    expect(branch.messages.filter((m) => hiddenKind(m) === SUMMARY_KIND).length).toBeLessThanOrEqual(1);
    expect(forkSummaries).toBeLessThanOrEqual(1);
    // The main line is still in the history, with its compacted messages.
    const all: any[] = [];
    for await (const snap of a.agent.graph.getStateHistory(cfg)) all.push(snap);
    expect(all.some((snap) => (snap.values.messages as BaseMessage[]).some((m) => m.getType() === "human" && String(m.content) === "task 2 read more"))).toBe(true);
  }, 120_000);
});
