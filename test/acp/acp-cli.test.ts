// `deerflow acp` as an editor runs it: the built CLI spawned with its stdio as the protocol, a real ACP client (the
// SDK's client API) on the other end, the loopback test model behind it. The process boundary is what is tested:
// stdout carries nothing but JSON-RPC messages (every line is parsed), malformed input gets a JSON-RPC error and the
// agent keeps serving, and the session is a thread the terminal sees.
import { execFileSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { Writable } from "node:stream";
import { PROTOCOL_VERSION, ndJsonStream } from "@agentclientprotocol/sdk";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { BIN } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { listThreads } from "../support/requests.js";
import { testClient } from "../support/acp-client.js";
import { waitFor } from "../support/wait.js";

const e2e = useE2E();

describe("deerflow acp over stdio", () => {
  it("serves a real ACP client; stdout is protocol only; bad lines get errors; the session is a thread", async () => {
    const sb = e2e.sandbox();
    execFileSync("git", ["init", "-q"], { cwd: sb.cwd });
    e2e.server.push({ toolCalls: [{ id: "b1", name: "bash", args: { command: "echo hello-from-acp" } }] }, { content: "It said hello." });
    const child = execa(process.execPath, [BIN, "acp"], { cwd: sb.cwd, env: sb.env, extendEnv: false, reject: false, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const lines: string[] = [];
    let buffered = "";
    // The client reads what the agent printed once it connects (the answers to the bad lines are not its), and the
    // test keeps every line of it.
    let forward = false;
    const fromAgent = new ReadableStream<Uint8Array>({
      start(controller) {
        child.stdout!.on("data", (chunk: Buffer) => {
          buffered += chunk.toString("utf8");
          const parts = buffered.split("\n");
          buffered = parts.pop()!;
          lines.push(...parts);
          if (forward) controller.enqueue(new Uint8Array(chunk));
        });
        child.stdout!.on("end", () => controller.close());
      },
    });
    // Garbage and an out-of-order request (a prompt before initialize, for no session) come first.
    child.stdin!.write("this is not json\n");
    child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id: 99, method: "session/prompt", params: { sessionId: "none", prompt: [] } })}\n`);
    await waitFor(() => (lines.some((l) => l.includes('"id":99')) ? true : undefined), "the error for request 99");
    forward = true;

    const c = testClient(ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, fromAgent));
    const init = await c.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    expect(init.agentInfo?.name).toBe("deerflow");
    const cwd = realpathSync(sb.cwd);
    const { sessionId } = await c.agent.request("session/new", { cwd, mcpServers: [] });
    const r = await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "say hello" }] });
    expect(r.stopReason).toBe("end_turn");
    expect(c.of(sessionId, "tool_call")).toMatchObject([{ toolCallId: "b1", kind: "execute", title: "Run echo hello-from-acp" }]);
    expect(c.of(sessionId, "tool_call_update")).toMatchObject([{ toolCallId: "b1", status: "completed", content: [{ content: { text: expect.stringContaining("hello-from-acp") } }] }]);
    expect(
      c
        .of(sessionId, "agent_message_chunk")
        .map((u) => (u.content as { text: string }).text)
        .join(""),
    ).toBe("It said hello.");

    // The editor closes stdin: the agent exits cleanly.
    child.stdin!.end();
    const done = await child;
    expect(done.exitCode).toBe(0);
    const messages = lines.filter((l) => l.trim()).map((l) => JSON.parse(l) as { jsonrpc: string; id?: unknown; error?: { code: number; message: string } });
    expect(messages.every((m) => m.jsonrpc === "2.0")).toBe(true);
    expect(messages.find((m) => m.id === null && m.error)?.error?.code).toBe(-32700);
    expect(messages.find((m) => m.id === 99)?.error).toBeDefined();
    expect(String(done.stderr)).not.toMatch(/\n\s+at /);
    // The session is the thread `deerflow resume <id>` opens, bound to the editor's folder.
    expect(await listThreads(sb)).toMatchObject([{ id: sessionId, workspace: cwd }]);
  });
});
