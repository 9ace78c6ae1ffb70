// `deerflow threads export` through the built CLI, one spawned test per contract: Markdown to stdout, JSON to a new
// file with -o (an existing file refused without --force, replaced with it), and a thread that does not exist (one
// line, exit 2). The thread is made in-process (ChatSession); the export is the process's.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { beforeEach, describe, expect, it } from "vitest";
import { createChatSession } from "../../src/runtime/chat-session.js";
import { ThreadRuntime } from "../../src/runtime/thread-runtime.js";
import { BIN, SUITE_CODE_CACHE } from "../support/cli.js";
import { useInProcessModel } from "../support/in-process.js";
import type { TestModelServer } from "../support/openai-server.js";

const env = useInProcessModel("deerflow-threads-export-");
let server: TestModelServer;
let home: string;
let cwd: string;
beforeEach(() => ({ server, home, cwd } = env()));

const exportCli = (...args: string[]) =>
  execa(process.execPath, [BIN, "threads", "export", ...args], {
    cwd,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, DEERFLOW_HOME: home, NO_COLOR: "1", DEERFLOW_DISCOVER_PORTS: "none", DEERFLOW_CACHE_DIR: SUITE_CODE_CACHE },
    reject: false,
  });

async function thread(): Promise<string> {
  server.push({ toolCalls: [{ name: "write_todos", args: { todos: [{ content: "say hello", status: "completed" }] } }] }, { content: "Hello from the agent." });
  const s = createChatSession({ home, model: "test-model", cwd });
  await s.send({ prompt: "say hello" }, () => {}, new AbortController().signal);
  await ThreadRuntime.closeAll();
  return s.threadId!;
}

describe("deerflow threads export", () => {
  it("prints the thread as Markdown on stdout", async () => {
    const id = await thread();
    const r = await exportCli(id);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Thread \`${id}\``);
    expect(r.stdout).toMatch(/### You\n\nsay hello\n/);
    expect(r.stdout).toMatch(/### deerflow\n\nHello from the agent\./);
    expect(r.stdout).toMatch(/## Todos\n\n- \[x\] say hello/);
    expect(r.stdout).toMatch(/each text and tool argument is cut at 20,000 characters/);
  }, 120_000);

  it("writes JSON to a new file with -o, refuses an existing one without --force, replaces it with --force", async () => {
    const id = await thread();
    const out = join(cwd, "thread.json");
    const r = await exportCli(id, "--format", "json", "-o", out);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    const doc = JSON.parse(readFileSync(out, "utf8"));
    expect(doc).toMatchObject({ version: 1, thread: { id }, todos: [{ content: "say hello", status: "completed" }] });
    expect(doc.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);

    writeFileSync(out, "keep me");
    const refused = await exportCli(id, "--format", "json", "-o", out);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr.startsWith(`deerflow: ${out} already exists: the export was not written.`), refused.stderr).toBe(true);
    expect(refused.stderr).toContain("--force");
    expect(readFileSync(out, "utf8")).toBe("keep me");
    // Without --format, a file named *.json gets JSON (as /export t.json does).
    expect((await exportCli(id, "-o", out, "--force")).exitCode).toBe(0);
    expect(JSON.parse(readFileSync(out, "utf8")).thread.id).toBe(id);
  }, 120_000);

  it("says in one line that a thread does not exist (exit 2, like threads show)", async () => {
    await thread();
    const r = await exportCli("no-such-thread");
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^deerflow: Thread no-such-thread not found\./);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);
});
