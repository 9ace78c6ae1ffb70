// `deerflow acp` as an editor runs it: ONE built CLI spawned for the whole file, its stdio the protocol, a real ACP
// client (the SDK's client API) on the other end serving several sessions, the loopback test model behind it. What
// the process boundary carries is tested here: streaming, reads and edits through the editor's file system, edits as
// diff content, commands, permissions, cancel, load of threads started in the terminal and over ACP, the client's MCP
// server, bad lines answered with JSON-RPC errors while the agent keeps serving, and stdout carrying nothing but
// JSON-RPC (every line is parsed at the end).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { PROTOCOL_VERSION, ndJsonStream } from "@agentclientprotocol/sdk";
import { type ResultPromise, execa } from "execa";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rawSse, streamChunk } from "../providers/fixtures.js";
import { type TestClient, choose, testClient, textOf } from "../support/acp-client.js";
import { BIN, type Sandbox, makeSandbox } from "../support/cli.js";
import { fixture } from "../support/mcp.js";
import { type TestModelServer, startTestModelServer } from "../support/openai-server.js";
import { listThreads, userTexts } from "../support/requests.js";
import { waitFor } from "../support/wait.js";

let server: TestModelServer;
let sb: Sandbox;
let child: ResultPromise;
let c: TestClient;
/** Every line the agent wrote on stdout, in order. */
const lines: string[] = [];

/** A line the test wrote itself (a probe with a "raw-" id, or an answer to an unparseable line): not the client's. */
function isProbeAnswer(line: string): boolean {
  try {
    const id = (JSON.parse(line) as { id?: unknown }).id;
    return id === null || (typeof id === "string" && id.startsWith("raw-"));
  } catch {
    return false;
  }
}

beforeAll(async () => {
  server = await startTestModelServer();
  sb = makeSandbox(server.url);
  child = execa(process.execPath, [BIN, "acp"], { cwd: sb.cwd, env: sb.env, extendEnv: false, reject: false, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  let buffered = "";
  const encoder = new TextEncoder();
  // Line by line to the client, but for the answers to the test's own probes (ids the client never sent).
  const fromAgent = new ReadableStream<Uint8Array>({
    start(controller) {
      child.stdout!.on("data", (chunk: Buffer) => {
        buffered += chunk.toString("utf8");
        const parts = buffered.split("\n");
        buffered = parts.pop()!;
        for (const line of parts) {
          lines.push(line);
          if (!isProbeAnswer(line)) controller.enqueue(encoder.encode(`${line}\n`));
        }
      });
      child.stdout!.on("end", () => controller.close());
    },
  });
  c = testClient(ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, fromAgent));
}, 60_000);

afterEach(() => {
  server.setScript([]);
  server.requests.length = 0;
  c.policy = () => choose("deny");
});

afterAll(async () => {
  if (child.exitCode === null) child.kill();
  await child;
  await server?.close();
  sb?.cleanup();
});

/** A fresh folder in the user's home for one session (real path: the agent reports real paths). */
function project(name: string, git = false): string {
  const dir = join(sb.userHome, name);
  mkdirSync(dir, { recursive: true });
  if (git) execFileSync("git", ["init", "-q"], { cwd: dir });
  return realpathSync(dir);
}

const _chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: "c1",
  object: "chat.completion.chunk",
  created: 1,
  model: "test-model",
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const prompt = (sessionId: string, words: string) => c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: words }] });

describe("deerflow acp over stdio, one process for every session", () => {
  it("initialize: the version both speak, what deerflow has (load, list, resume, close), no sign-in step", async () => {
    // As Zed does, the client offers its file system: the agent's reads and edits of workspace files go through it.
    const init = await c.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
    expect(init.protocolVersion).toBe(PROTOCOL_VERSION);
    expect(init.agentInfo?.name).toBe("deerflow");
    expect(init.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: false, embeddedContext: true },
      sessionCapabilities: { list: {}, resume: {}, close: {} },
    });
    expect(init.authMethods).toEqual([]);
  });

  it("a session in a git repository: a prompt streams its reasoning and answer, reads the editor's buffer, edits it (diff content, asked first) and runs a command", async () => {
    const cwd = project("repo", true);
    writeFileSync(join(cwd, "notes.txt"), "one\ntwo\n");
    c.buffers.set(join(cwd, "notes.txt"), "one\ntwo\nunsaved three\n");
    server.push(
      { toolCalls: [{ id: "r1", name: "read_file", args: { path: "notes.txt", start_line: 2 } }] },
      { toolCalls: [{ id: "e1", name: "str_replace", args: { path: "notes.txt", old_str: "two", new_str: "TWO" } }] },
      { toolCalls: [{ id: "b1", name: "bash", args: { command: "cat notes.txt" } }] },
      rawSse([streamChunk({ role: "assistant", content: null, reasoning_content: "Check the result. " }), streamChunk({ content: "Done: two is TWO." }), streamChunk({}, "stop"), "data: [DONE]\n\n"]),
    );
    const { sessionId, modes } = await c.agent.request("session/new", { cwd, mcpServers: [] });
    expect(modes).toMatchObject({ currentModeId: "ask", availableModes: [{ id: "ask" }, { id: "auto-edit" }, { id: "plan" }, { id: "yolo" }] });
    c.policy = () => choose("allow_once");
    expect((await prompt(sessionId, "make two loud")).stopReason).toBe("end_turn");

    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("one\nTWO\nunsaved three\n");
    expect(c.fileRequests.filter((r) => r.method === "write")).toEqual([{ method: "write", path: join(cwd, "notes.txt"), content: "one\nTWO\nunsaved three\n" }]);
    expect(c.of(sessionId, "tool_call")).toMatchObject([
      { toolCallId: "r1", kind: "read", title: "Read notes.txt", locations: [{ path: join(cwd, "notes.txt"), line: 2 }] },
      { toolCallId: "e1", kind: "edit", title: "Edit notes.txt", locations: [{ path: join(cwd, "notes.txt") }] },
      { toolCallId: "b1", kind: "execute", title: "Run cat notes.txt" },
    ]);
    const diff = { type: "diff", path: join(cwd, "notes.txt"), oldText: "one\ntwo\nunsaved three", newText: "one\nTWO\nunsaved three" };
    expect(c.permissions.map((p) => p.toolCall.toolCallId)).toEqual(["e1"]);
    expect(c.permissions[0]!.toolCall.content![0]).toEqual(diff);
    expect(c.of(sessionId, "tool_call_update")).toMatchObject([
      { toolCallId: "r1", status: "completed", content: [{ content: { text: expect.stringContaining("unsaved three") } }] },
      { toolCallId: "e1", status: "completed", content: [diff] },
      { toolCallId: "b1", status: "completed", content: [{ content: { text: expect.stringContaining("TWO") } }] },
    ]);
    expect(textOf(c.of(sessionId, "agent_thought_chunk"))).toBe("Check the result. ");
    expect(textOf(c.of(sessionId, "agent_message_chunk"))).toBe("Done: two is TWO.");
    // The session is the thread `deerflow resume <id>` opens, bound to the editor's folder.
    expect((await listThreads(sb)).find((t) => t.id === sessionId)).toMatchObject({ workspace: cwd });
  });

  it("permissions: a rejected edit is not made; allow always stops asking for the session's later edits", async () => {
    const cwd = project("perms");
    server.push(
      { toolCalls: [{ id: "w1", name: "write_file", args: { path: "a.txt", content: "rejected\n" } }] },
      { content: "Left it." },
      { toolCalls: [{ id: "w2", name: "write_file", args: { path: "a.txt", content: "second\n" } }] },
      { toolCalls: [{ id: "w3", name: "write_file", args: { path: "b.txt", content: "third\n" } }] },
      { content: "Both written." },
    );
    const { sessionId } = await c.agent.request("session/new", { cwd, mcpServers: [] });
    const asked = c.permissions.length;
    c.policy = () => choose("deny");
    await prompt(sessionId, "write a");
    expect(existsSync(join(cwd, "a.txt"))).toBe(false);
    expect(c.of(sessionId, "tool_call_update")).toMatchObject([{ toolCallId: "w1", status: "failed" }]);

    c.policy = () => choose("allow_always");
    await prompt(sessionId, "now write both");
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("second\n");
    expect(readFileSync(join(cwd, "b.txt"), "utf8")).toBe("third\n");
    expect(c.permissions.slice(asked).map((p) => p.toolCall.toolCallId)).toEqual(["w1", "w2"]);
    expect(c.permissions.at(-1)!.options.find((o) => o.kind === "allow_always")?.name).toBe("Allow all edits in this session");
  });

  it("cancel mid-stream keeps what streamed; cancel mid-permission withdraws the question and the command never runs", async () => {
    const cwd = project("cancel");
    mkdirSync(join(cwd, "build"));
    server.push(
      rawSse([streamChunk({ role: "assistant", content: "Partial answer " })], { end: "hang" }),
      { toolCalls: [{ id: "rm1", name: "bash", args: { command: "rm -r build && echo removed" } }] },
      { content: "Still here." },
    );
    const { sessionId } = await c.agent.request("session/new", { cwd, mcpServers: [] });
    const turn = prompt(sessionId, "write a lot");
    await waitFor(() => (c.of(sessionId, "agent_message_chunk").length > 0 ? true : undefined), "the first chunk");
    await c.agent.notify("session/cancel", { sessionId });
    expect((await turn).stopReason).toBe("cancelled");

    c.policy = async () => {
      await c.agent.notify("session/cancel", { sessionId });
      return { outcome: { outcome: "cancelled" } };
    };
    expect((await prompt(sessionId, "clean the build")).stopReason).toBe("cancelled");
    expect(existsSync(join(cwd, "build"))).toBe(true);

    expect((await prompt(sessionId, "are you there?")).stopReason).toBe("end_turn");
    const sent = JSON.stringify(server.requests.at(-1)!.body.messages);
    expect(sent).toContain("Partial answer");
    expect(userTexts(server.requests.at(-1)!).at(-1)).toBe("are you there?");
  });

  it("session/load replays a thread started by `deerflow run` and one started over ACP (listed, closed), then continues them", async () => {
    const cwd = project("loads");
    server.push({ toolCalls: [{ id: "s1", name: "bash", args: { command: "echo from-terminal" } }] }, { content: "Terminal answer." });
    const run = await sb.run(["run", "in the terminal"], { cwd });
    expect(run.exitCode).toBe(0);
    const terminal = (await listThreads(sb)).find((t) => t.workspace === cwd)!;

    // A session of this process, closed (the thread stays), is listed with its folder, then loaded by id.
    server.push({ content: "Editor answer." });
    const { sessionId } = await c.agent.request("session/new", { cwd, mcpServers: [] });
    await prompt(sessionId, "in the editor");
    await c.agent.request("session/close", { sessionId });
    await expect(prompt(sessionId, "still there?")).rejects.toMatchObject({ code: -32002 });
    const listed = await c.agent.request("session/list", { cwd });
    expect(listed.sessions.map((s) => s.sessionId)).toEqual([sessionId, terminal.id]);
    expect(listed.sessions.every((s) => s.cwd === cwd)).toBe(true);

    const before = c.updates.length;
    await c.agent.request("session/load", { sessionId: terminal.id, cwd, mcpServers: [] });
    await c.agent.request("session/load", { sessionId, cwd, mcpServers: [] });
    const replayed = c.updates.slice(before);
    const of = (id: string, kind: string) => replayed.filter((n) => n.sessionId === id && n.update.sessionUpdate === kind).map((n) => n.update as { content: { type: string; text?: string } });
    expect(textOf(of(terminal.id, "user_message_chunk"))).toBe("in the terminal");
    expect(replayed.find((n) => n.sessionId === terminal.id && n.update.sessionUpdate === "tool_call")?.update).toMatchObject({
      toolCallId: "s1",
      kind: "execute",
      status: "completed",
      content: [{ content: { text: expect.stringContaining("from-terminal") } }],
    });
    expect(textOf(of(sessionId, "user_message_chunk"))).toBe("in the editor");
    expect(textOf(of(sessionId, "agent_message_chunk"))).toBe("Editor answer.");

    server.push({ content: "Continued." });
    expect((await prompt(terminal.id, "and in the editor")).stopReason).toBe("end_turn");
    expect(userTexts(server.requests.at(-1)!)).toEqual(["in the terminal", "and in the editor"]);
  });

  it("an MCP server the client passes runs for its session; its untrusted tool asks first", async () => {
    const cwd = project("mcp");
    server.push({ toolCalls: [{ id: "m1", name: "mcp__editor__fixture_0", args: { text: "ping" } }] }, { content: "The editor's tool answered." });
    const fx = fixture("--tools", "1");
    const { sessionId } = await c.agent.request("session/new", { cwd, mcpServers: [{ name: "editor", command: fx.command, args: fx.args, env: [] }] });
    const asked = c.permissions.length;
    c.policy = () => choose("allow_once");
    await prompt(sessionId, "use the editor's tool");
    expect(server.requests[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toContain("mcp__editor__fixture_0");
    expect(c.permissions.slice(asked).map((p) => p.toolCall.toolCallId)).toEqual(["m1"]);
    expect(c.of(sessionId, "tool_call_update")).toMatchObject([{ toolCallId: "m1", status: "completed", content: [{ content: { text: expect.stringContaining("ping") } }] }]);
  });

  it("a malformed line and out-of-order messages get JSON-RPC errors, and the agent keeps serving", async () => {
    const probe = (message: Record<string, unknown>) => child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    const answer = (id: string) => waitFor(() => lines.map((l) => JSON.parse(l) as { id?: unknown; error?: { code: number } }).find((m) => m.id === id), `the answer to ${id}`);
    child.stdin!.write("this is not json\n");
    probe({ id: "raw-1", method: "session/prompt", params: { sessionId: "no-such-session", prompt: [{ type: "text", text: "x" }] } });
    probe({ id: "raw-2", method: "session/frobnicate", params: {} });
    probe({ id: "raw-3", method: "session/new", params: { cwd: 42 } });
    // An answer to a request the agent never made, and a notification it does not know: nothing to answer.
    probe({ id: "raw-4", result: {} });
    probe({ method: "session/frobnicated", params: {} });
    expect((await answer("raw-1")).error?.code).toBe(-32002);
    expect((await answer("raw-2")).error?.code).toBe(-32601);
    expect((await answer("raw-3")).error?.code).toBe(-32602);
    await waitFor(() => lines.find((l) => JSON.parse(l).id === null), "the parse error");
    expect(JSON.parse(lines.find((l) => JSON.parse(l).id === null)!).error.code).toBe(-32700);
    // Still serving the client.
    const { sessions } = await c.agent.request("session/list", {});
    expect(sessions.length).toBeGreaterThan(0);
  });

  it("the editor closes stdin: the agent exits 0; every line it wrote on stdout was a JSON-RPC message; no stack trace", async () => {
    child.stdin!.end();
    const done = await child;
    expect(done.exitCode).toBe(0);
    const messages = lines.filter((l) => l.trim()).map((l) => JSON.parse(l) as { jsonrpc?: string });
    expect(messages.length).toBeGreaterThan(20);
    expect(messages.every((m) => m.jsonrpc === "2.0")).toBe(true);
    expect(String(done.stderr)).not.toMatch(/\n\s+at /);
  });
});
