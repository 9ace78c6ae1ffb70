// The editor's file system over ACP, driven in-process by the SDK's client offering fs/read_text_file and
// fs/write_text_file: reads see the editor's unsaved text, edits are written through the editor with the diff still
// reported and ReadBeforeWrite still holding, paths outside the workspace never reach the editor, and an editor that
// fails costs a read its buffer (the disk is read, with a note) and an edit its write (the call fails, nothing
// changes).
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { beforeEach, describe, expect, it } from "vitest";
import { type TestClient, choose } from "../support/acp-client.js";
import { useAcpAgent } from "../support/acp-in-process.js";
import type { TestModelServer } from "../support/openai-server.js";

const acp = useAcpAgent("deerflow-acp-fs-");
let server: TestModelServer;
let cwd: string;
let logs: string[];
let connect: () => TestClient;
beforeEach(() => ({ server, cwd, logs, connect } = acp()));

/** A client offering its file system, with a session in `cwd` (ask mode). */
async function editorSession(fs: { readTextFile: boolean; writeTextFile: boolean } = { readTextFile: true, writeTextFile: true }) {
  const c = connect();
  await c.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: { fs } });
  const { sessionId } = await c.agent.request("session/new", { cwd, mcpServers: [] });
  return { c, sessionId };
}

const toolText = (c: TestClient, sessionId: string, id: string) =>
  (c.of(sessionId, "tool_call_update").find((u) => u.toolCallId === id)?.content?.[0] as { content?: { text?: string } } | undefined)?.content?.text ?? "";

describe("the editor's file system", () => {
  it("read_file sees the unsaved buffer, str_replace edits it through the editor (diff reported), outside paths never reach the editor", async () => {
    writeFileSync(join(cwd, "notes.txt"), "one\ntwo\n");
    writeFileSync(join(cwd, "..", "outside.txt"), "OUTSIDE-SECRET\n");
    server.push(
      {
        toolCalls: [
          { id: "r1", name: "read_file", args: { path: "notes.txt" } },
          { id: "r2", name: "read_file", args: { path: "../outside.txt" } },
          { id: "r3", name: "read_file", args: { path: "/etc/hostname" } },
          { id: "r4", name: "read_file", args: { path: "etc-link/hostname" } },
        ],
      },
      { toolCalls: [{ id: "e1", name: "str_replace", args: { path: "notes.txt", old_str: "UNSAVED", new_str: "DONE" } }] },
      { toolCalls: [{ id: "w1", name: "write_file", args: { path: "new/made.txt", content: "fresh\n" } }] },
      { content: "Edited the buffer." },
    );
    symlinkSync("/etc", join(cwd, "etc-link"));
    const { c, sessionId } = await editorSession();
    c.buffers.set(join(cwd, "notes.txt"), "one\nUNSAVED\n");
    c.policy = () => choose("allow_once");
    await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "finish the note" }] });

    expect(toolText(c, sessionId, "r1")).toContain("UNSAVED");
    expect(c.of(sessionId, "tool_call_update").find((u) => u.toolCallId === "r2")?.status).toBe("failed");
    expect(c.of(sessionId, "tool_call_update").find((u) => u.toolCallId === "r3")?.status).toBe("failed");
    expect(c.of(sessionId, "tool_call_update").find((u) => u.toolCallId === "r4")?.status).toBe("failed");
    // The edit was made on the editor's text (ReadBeforeWrite held against it), asked with its diff, written by the editor.
    const diff = { type: "diff", path: join(cwd, "notes.txt"), oldText: "one\nUNSAVED", newText: "one\nDONE" };
    expect(c.permissions[0]!.toolCall.content![0]).toEqual(diff);
    expect(c.of(sessionId, "tool_call_update").find((u) => u.toolCallId === "e1")).toMatchObject({ status: "completed", content: [diff] });
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("one\nDONE\n");
    expect(readFileSync(join(cwd, "new", "made.txt"), "utf8")).toBe("fresh\n");
    // Read by read_file, by the approval's plan of the edit and by the edit itself.
    expect(c.fileRequests).toEqual([
      { method: "read", path: join(cwd, "notes.txt") },
      { method: "read", path: join(cwd, "notes.txt") },
      { method: "read", path: join(cwd, "notes.txt") },
      { method: "write", path: join(cwd, "notes.txt"), content: "one\nDONE\n" },
      { method: "write", path: join(cwd, "new", "made.txt"), content: "fresh\n" },
    ]);
    expect(JSON.stringify(server.requests.map((r) => r.body.messages))).not.toContain("OUTSIDE-SECRET");
  });

  it("an editor that fails: the read falls back to the disk with a note; the write fails its call and changes nothing", async () => {
    writeFileSync(join(cwd, "notes.txt"), "disk text\n");
    server.push(
      { toolCalls: [{ id: "r1", name: "read_file", args: { path: "notes.txt" } }] },
      { toolCalls: [{ id: "e1", name: "str_replace", args: { path: "notes.txt", old_str: "disk", new_str: "new" } }] },
      { content: "Could not edit." },
    );
    const { c, sessionId } = await editorSession();
    c.fileError = "buffer is locked";
    c.policy = () => choose("allow_once");
    await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "edit it" }] });
    expect(toolText(c, sessionId, "r1")).toContain("disk text");
    expect(logs[0]).toMatch(new RegExp(`^the editor did not give its text of ${join(cwd, "notes.txt")} \\(.*buffer is locked\\): read from the disk\\.$`));
    expect(c.of(sessionId, "tool_call_update").find((u) => u.toolCallId === "e1")?.status).toBe("failed");
    expect(toolText(c, sessionId, "e1")).toContain("The editor did not write");
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("disk text\n");
  });

  it("a client offering reads only: edits are written on the disk", async () => {
    writeFileSync(join(cwd, "notes.txt"), "one\n");
    server.push({ toolCalls: [{ id: "w1", name: "write_file", args: { path: "b.txt", content: "bee\n" } }] }, { content: "Written." });
    const { c, sessionId } = await editorSession({ readTextFile: true, writeTextFile: false });
    c.policy = () => choose("allow_once");
    await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write b" }] });
    expect(readFileSync(join(cwd, "b.txt"), "utf8")).toBe("bee\n");
    expect(c.fileRequests.filter((r) => r.method === "write")).toEqual([]);
  });
});
