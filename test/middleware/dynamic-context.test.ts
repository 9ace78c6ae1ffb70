import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dynamicContextMiddleware, findRepoRoot, loadAgentsMemory, localDate } from "../../src/middleware/dynamic-context.js";
import { threadDataMiddleware } from "../../src/middleware/thread-data.js";
import { isHiddenMessage } from "../../src/vocabulary/message-markers.js";
import { type TestModelServer, startTestModelServer } from "../support/openai-server.js";
import { startLinkSwapper } from "../support/link-swapper.js";

const SYSTEM_PROMPT = "You are deerflow, a terminal coding agent.\nBe precise.";

type WireMessage = { role: string; content: string | { type: string; text?: string }[] };
const textOf = (m: WireMessage) => (typeof m.content === "string" ? m.content : m.content.map((p) => p.text ?? "").join(""));
const isReminder = (m: WireMessage) => m.role === "user" && textOf(m).startsWith("<system-reminder>");

let server: TestModelServer;
let root: string;
let home: string;
let repo: string;
let workspace: string;

beforeEach(async () => {
  server = await startTestModelServer((_req, i) => ({ content: `reply ${i + 1}` }));
  root = mkdtempSync(join(tmpdir(), "deerflow-dc-"));
  home = join(root, "home");
  repo = join(root, "repo");
  workspace = join(repo, "packages", "app");
  mkdirSync(home, { recursive: true });
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(home, "AGENTS.md"), "HOME-MEMORY: answer in English.\n");
  writeFileSync(join(repo, "AGENTS.md"), "REPO-MEMORY: use pnpm.\n");
  writeFileSync(join(workspace, "AGENTS.md"), "WORKSPACE-MEMORY: tests live in test/.\n");
});

afterEach(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

function makeAgent(now: () => Date) {
  const model = new ChatOpenAI({
    model: "test-model",
    apiKey: "test",
    configuration: { baseURL: server.url },
    useResponsesApi: false,
    streaming: false,
    maxRetries: 0,
  });
  return createAgent({
    model,
    tools: [],
    systemPrompt: SYSTEM_PROMPT,
    middleware: [threadDataMiddleware(), dynamicContextMiddleware({ now })],
    checkpointer: new MemorySaver(),
  });
}

const configFor = (threadId: string) => ({
  configurable: { thread_id: threadId, deerflow_home: home, deerflow_thread_data: { workspace_path: workspace } },
});

describe("DynamicContext through createAgent and a real ChatOpenAI", () => {
  it("static system prompt over five turns and a date change; one reminder per date before that day's user message", async () => {
    let clock = new Date(2025, 0, 14, 23, 30); // local time
    const agent = makeAgent(() => clock);
    const config = configFor("t-days");
    for (let turn = 1; turn <= 5; turn++) {
      if (turn === 3) clock = new Date(2025, 0, 15, 8, 0);
      await agent.invoke({ messages: [new HumanMessage(`turn ${turn}`)] }, config);
    }
    expect(server.requests).toHaveLength(5);
    const bodies = server.requests.map((r) => r.body as { messages: WireMessage[] });

    // The system message is first, and byte-identical on every turn (turn 1 vs turn 5 especially).
    for (const b of bodies) expect(b.messages[0]!.role).toBe("system");
    expect(JSON.stringify(bodies[4]!.messages[0])).toBe(JSON.stringify(bodies[0]!.messages[0]));
    expect(new Set(bodies.map((b) => JSON.stringify(b.messages[0]))).size).toBe(1);
    expect(textOf(bodies[0]!.messages[0]!)).toBe(SYSTEM_PROMPT);
    expect(textOf(bodies[0]!.messages[0]!)).not.toContain("2025");

    // History is stable: each request is the previous one plus new messages at the end (prefix cache).
    for (let k = 1; k < bodies.length; k++) {
      const prev = bodies[k - 1]!.messages.map((m) => JSON.stringify(m));
      const cur = bodies[k]!.messages.map((m) => JSON.stringify(m));
      expect(cur.slice(0, prev.length)).toEqual(prev);
    }

    // One reminder on each of turns 1-2 (same day), two from turn 3 on.
    expect(bodies.map((b) => b.messages.filter(isReminder).length)).toEqual([1, 1, 2, 2, 2]);

    const last = bodies[4]!.messages;
    const reminders = last.filter(isReminder);
    expect(textOf(reminders[0]!)).toContain("2025-01-14");
    expect(textOf(reminders[1]!)).toContain("2025-01-15");
    // Each right before the user message of its day.
    const idx1 = last.indexOf(reminders[0]!);
    const idx2 = last.indexOf(reminders[1]!);
    expect(textOf(last[idx1 + 1]!)).toBe("turn 1");
    expect(textOf(last[idx2 + 1]!)).toBe("turn 3");
    expect(last[idx1 + 1]!.role).toBe("user");
    // Memory: home, repo root and workspace AGENTS.md, top-down.
    for (const r of reminders) {
      const t = textOf(r);
      expect(t.startsWith("<system-reminder>")).toBe(true);
      expect(t.trimEnd().endsWith("</system-reminder>")).toBe(true);
      const [h, rp, w] = ["HOME-MEMORY", "REPO-MEMORY", "WORKSPACE-MEMORY"].map((s) => t.indexOf(s));
      expect(h).toBeGreaterThan(0);
      expect(rp).toBeGreaterThan(h!);
      expect(w).toBeGreaterThan(rp!);
    }

    // The persisted reminders are hidden, dated and id'd by date.
    const state = await agent.graph.getState(config);
    const hidden = (state.values.messages as BaseMessage[]).filter(isHiddenMessage);
    expect(hidden.map((m) => m.id)).toEqual(["reminder-2025-01-14", "reminder-2025-01-15"]);
    expect(hidden.map((m) => m.additional_kwargs.date)).toEqual(["2025-01-14", "2025-01-15"]);
    expect(hidden.every((m) => m.additional_kwargs.deerflow_hidden === "dynamic_context")).toBe(true);
    expect(hidden.every((m) => HumanMessage.isInstance(m))).toBe(true);
  });

  it("a failed run retried the same day does not duplicate the reminder", async () => {
    const clock = new Date(2025, 5, 1, 12, 0);
    const agent = makeAgent(() => clock);
    const config = configFor("t-retry");
    server.setScript([{ status: 400, error: "bad request" }]);
    await expect(agent.invoke({ messages: [new HumanMessage("first try")] }, config)).rejects.toThrow();
    server.setScript((_req, i) => ({ content: `ok ${i}` }));
    await agent.invoke({ messages: [new HumanMessage("second try")] }, config);
    await agent.invoke({ messages: [new HumanMessage("third")] }, config);

    for (const r of server.requests) {
      const reminders = (r.body.messages as WireMessage[]).filter(isReminder);
      expect(reminders).toHaveLength(1);
      expect(textOf(reminders[0]!)).toContain("2025-06-01");
    }
    const state = await agent.graph.getState(config);
    const msgs = state.values.messages as BaseMessage[];
    expect(msgs.filter(isHiddenMessage)).toHaveLength(1);
    expect(msgs[0]!.id).toBe("reminder-2025-06-01");
    expect(msgs[1]!.content).toBe("first try");
  });

  it("with no AGENTS.md anywhere the reminder still carries the date", async () => {
    rmSync(join(home, "AGENTS.md"));
    rmSync(join(repo, "AGENTS.md"));
    rmSync(join(workspace, "AGENTS.md"));
    const agent = makeAgent(() => new Date(2024, 1, 29, 10, 0));
    await agent.invoke({ messages: [new HumanMessage("hello")] }, configFor("t-empty"));
    const msgs = server.requests[0]!.body.messages as WireMessage[];
    expect(msgs.map((m) => m.role)).toEqual(["system", "user", "user"]);
    expect(textOf(msgs[1]!)).toContain("2024-02-29");
    expect(textOf(msgs[1]!)).not.toContain("agents_md");
    expect(textOf(msgs[2]!)).toBe("hello");
  });
});

describe("AGENTS.md memory loading", () => {
  it("finds the repo root, merges top-down, dedupes the workspace that is the repo root", () => {
    expect(findRepoRoot(workspace)).toBe(repo);
    const files = loadAgentsMemory({ home, workspace });
    expect(files.map((f) => f.scope)).toEqual(["global", "repository", "workspace"]);
    const atRoot = loadAgentsMemory({ home, workspace: repo });
    expect(atRoot.map((f) => f.scope)).toEqual(["global", "repository"]);
  });

  it("caps the total at maxBytes, serving the most specific file first", () => {
    writeFileSync(join(home, "AGENTS.md"), "é".repeat(10_000));
    const files = loadAgentsMemory({ home, workspace, maxBytes: 8192 });
    const total = files.reduce((n, f) => n + Buffer.byteLength(f.content, "utf8"), 0);
    expect(total).toBeLessThanOrEqual(8192);
    expect(files.find((f) => f.scope === "workspace")!.content).toContain("WORKSPACE-MEMORY");
    expect(files.find((f) => f.scope === "repository")!.content).toContain("REPO-MEMORY");
    const global = files.find((f) => f.scope === "global")!;
    expect(global.truncated).toBe(true);
    expect(global.content).not.toContain("\uFFFD");
  });

  it("localDate is the local calendar date", () => {
    expect(localDate(new Date(2025, 11, 31, 23, 59))).toBe("2025-12-31");
    expect(localDate(new Date(2026, 0, 1, 0, 0))).toBe("2026-01-01");
  });
});

describe("a repository's AGENTS.md is data from where it lies (the seventh pass)", () => {
  it("a shipped AGENTS.md symlink to a credential outside the repository is not read; key shapes in one are masked", () => {
    const root = mkdtempSync(join(tmpdir(), "deerflow-agentsmd-"));
    const ws = join(root, "clone");
    mkdirSync(join(ws, ".git"), { recursive: true });
    mkdirSync(join(root, "aws"));
    writeFileSync(join(root, "aws", "credentials"), "aws_secret_access_key = LINKED-SECRET\n");
    symlinkSync(join(root, "aws", "credentials"), join(ws, "AGENTS.md"));
    expect(JSON.stringify(loadAgentsMemory({ workspace: ws }))).not.toContain("LINKED-SECRET");
    rmSync(join(ws, "AGENTS.md"));
    writeFileSync(join(ws, ".git", "config"), '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic CI-TOKEN-1\n');
    symlinkSync(join(ws, ".git", "config"), join(ws, "AGENTS.md"));
    expect(JSON.stringify(loadAgentsMemory({ workspace: ws }))).not.toContain("CI-TOKEN-1");
    rmSync(join(ws, "AGENTS.md"));
    writeFileSync(join(ws, "AGENTS.md"), "Use pnpm. Deploy token: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n");
    const files = loadAgentsMemory({ workspace: ws });
    expect(files[0]!.content).toContain("Use pnpm.");
    expect(files[0]!.content).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    rmSync(root, { recursive: true, force: true });
  });

  it("an AGENTS.md a background job swaps for a link to a host file is opened once: the host file is never read (the seventeenth pass's AG1)", async () => {
    const root = mkdtempSync(join(tmpdir(), "deerflow-agentsrace-"));
    const ws = join(root, "clone");
    mkdirSync(join(ws, ".git"), { recursive: true });
    writeFileSync(join(root, "token"), "SOMEAPP-TOKEN");
    writeFileSync(join(ws, "AGENTS.md"), "Use tabs.");
    const swapper = await startLinkSwapper(ws, "AGENTS.md", join(root, "token"), "Use tabs.");
    const seen = new Set<string>();
    try {
      // At least 1000 loads, and on until both sides were met: on a busy machine the swapper may not run for a while.
      for (let i = 0; i < 1000 || (i < 200_000 && !(seen.has("Use tabs.") && seen.has(""))); i++)
        seen.add(
          loadAgentsMemory({ workspace: ws })
            .map((f) => f.content)
            .join("|"),
        );
    } finally {
      await swapper.stop();
      rmSync(root, { recursive: true, force: true });
    }
    expect([...seen].join("\n")).not.toContain("SOMEAPP-TOKEN");
    // Both sides of the swap were met (read, and skipped as a link out): the race was run, not missed.
    expect(seen).toContain("Use tabs.");
    expect(seen).toContain("");
  });
});
