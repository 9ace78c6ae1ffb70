// End to end: `deerflow threads`, `run --continue` / `--thread`, and the checkpoint-mode gate, with the CLI run
// in-process (runCli: argv, output, exit codes) against the loopback test model.
import { existsSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import Database from "better-sqlite3";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { runCli } from "../support/cli-in-process.js";
import type { RecordedRequest } from "../support/openai-server.js";

const e2e = useE2E();
let sb: Sandbox | undefined;

const DB_FILE = "deerflow.sqlite";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** The conversation a request carried, as "role: text" lines (system prompt and hidden reminders left out). */
function conversation(req: RecordedRequest): string[] {
  const msgs = req.body.messages as { role: string; content: unknown }[];
  return msgs
    .filter((m) => m.role !== "system")
    .map((m) => {
      const c = m.content;
      const t = typeof c === "string" ? c : Array.isArray(c) ? c.map((b: any) => (typeof b === "string" ? b : (b?.text ?? ""))).join("") : "";
      return `${m.role}: ${t}`;
    })
    .filter((line) => !line.startsWith("user: <system-reminder>"));
}

/** `deerflow run --output-format json …`, asserting success; returns the result object. */
async function run(s: Sandbox, args: string[], env?: Record<string, string | undefined>) {
  const r = await runCli(s, ["run", "--output-format", "json", ...args], { env });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { thread_id: string; status: string; final_text: string };
}

async function threadsJson(s: Sandbox, env?: Record<string, string | undefined>) {
  const r = await runCli(s, ["threads", "--json"], { env });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>[];
}

describe("deerflow threads", () => {
  it("with no threads says so, exits 0 and creates no database", async () => {
    sb = e2e.sandbox();
    const r = await runCli(sb, ["threads"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/No threads yet/);
    expect(r.stderr).toBe("");
    const j = await runCli(sb, ["threads", "--json"]);
    expect(j.exitCode).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual([]);
    expect(existsSync(join(sb.home, DB_FILE))).toBe(false);
    expect(existsSync(sb.home) ? readdirSync(sb.home) : []).toEqual([]);
    expect(e2e.server.requests).toHaveLength(0);
  });

  it("after two runs, --json lists both newest first with id, title, times, status, workspace, mode and host", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ content: "first answer" }, { content: "second answer" });
    const first = await run(sb, ["first question"]);
    const second = await run(sb, ["second question"]);
    expect(first.thread_id).not.toBe(second.thread_id);
    expect(existsSync(join(sb.home, DB_FILE))).toBe(true);

    const rows = await threadsJson(sb);
    expect(rows.map((t) => t.id)).toEqual([second.thread_id, first.thread_id]);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(["created_at", "host", "id", "mode", "status", "title", "updated_at", "workspace"]);
      expect(row).toMatchObject({ status: "success", mode: "delta" });
      expect(row.created_at).toMatch(ISO);
      expect(row.updated_at).toMatch(ISO);
      expect(String(row.updated_at) >= String(row.created_at)).toBe(true);
      expect(row.title === null || typeof row.title === "string").toBe(true);
      // A new thread works in the directory it was started in (here the sandbox's project folder).
      expect(row.workspace).toBe(realpathSync(sb.cwd));
      expect(existsSync(String(row.workspace))).toBe(true);
    }
    expect(String(rows[0]!.updated_at) >= String(rows[1]!.updated_at)).toBe(true);
    expect(String(rows[0]!.created_at) >= String(rows[1]!.created_at)).toBe(true);

    // the text listing: one line per thread, same order
    const text = await runCli(sb, ["threads"]);
    expect(text.exitCode).toBe(0);
    const lines = text.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(second.thread_id);
    expect(lines[0]).toContain("success");
    expect(lines[1]).toContain(first.thread_id);
  }, 60_000);

  it("run --continue continues the latest thread, and the model receives its history", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ content: "alpha answer" }, { content: "beta answer" }, { content: "beta again" });
    const a = await run(sb, ["alpha question"]);
    const b = await run(sb, ["beta question"]);
    const cont = await run(sb, ["--continue", "follow up on beta"]);
    expect(cont.thread_id).toBe(b.thread_id);
    expect(cont.final_text).toBe("beta again");
    expect(e2e.server.requests).toHaveLength(3);
    expect(conversation(e2e.server.requests[2]!)).toEqual(["user: beta question", "assistant: beta answer", "user: follow up on beta"]);

    // --thread makes an older thread the latest; --continue then follows it
    e2e.server.push({ content: "alpha again" }, { content: "alpha third" });
    const viaId = await run(sb, ["--thread", a.thread_id, "back to alpha"]);
    expect(viaId.thread_id).toBe(a.thread_id);
    const cont2 = await run(sb, ["-c", "and once more"]);
    expect(cont2.thread_id).toBe(a.thread_id);
    expect(conversation(e2e.server.requests[4]!)).toEqual(["user: alpha question", "assistant: alpha answer", "user: back to alpha", "assistant: alpha again", "user: and once more"]);
    const rows = await threadsJson(sb);
    expect(rows.map((t) => t.id)).toEqual([a.thread_id, b.thread_id]);
    expect(rows.every((t) => t.status === "success")).toBe(true);
  }, 60_000);

  it("run --continue with no thread yet is a usage error (exit 2) and calls no model", async () => {
    sb = e2e.sandbox();
    const r = await runCli(sb, ["run", "--continue", "hello?"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/no thread to continue/i);
    expect(e2e.server.requests).toHaveLength(0);
  });
});

describe("checkpoint mode per thread", () => {
  const DELTA = { DEERFLOW_CHECKPOINT_MODE: "delta" };
  const FULL = { DEERFLOW_CHECKPOINT_MODE: "full" };

  it("threads show reads a delta thread whose last checkpoint is a snapshot of the messages", async () => {
    // This failed with "internal error: messages.forEach is not a function": the raw checkpoint's messages were
    // handed to the transcript before the delta branch rebuilt them, and a snapshot there is an object, not a list.
    sb = e2e.sandbox();
    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ checkpoint: { channelMode: "delta", snapshotFrequency: 1 } }));
    e2e.server.push({ content: "snapshot answer" });
    const t = await run(sb, ["remember this"]);
    const shown = await runCli(sb, ["threads", "show", t.thread_id]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("remember this");
    expect(shown.stdout).toContain("snapshot answer");
  }, 60_000);

  it("threads show reads a delta thread on a machine with no model configured (reading never calls the model)", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ content: "an answer worth reading" });
    const t = await run(sb, ["a question worth keeping"]);
    const shown = await runCli(sb, ["threads", "show", t.thread_id, "--json"], { env: { DEERFLOW_MODEL: "", OPENAI_BASE_URL: "", OPENAI_API_KEY: "" } });
    expect(shown.exitCode, shown.stderr).toBe(0);
    const texts = (JSON.parse(shown.stdout).entries as { text?: string }[]).map((e) => e.text);
    expect(texts).toEqual(["a question worth keeping", "an answer worth reading"]);
    expect(e2e.server.requests).toHaveLength(1);
  }, 60_000);

  it("a new thread is delta by default; continuing it with full mode asked for explicitly → exit 2, one line naming the thread and both modes, no model call", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ content: "delta answer" });
    const t = await run(sb, ["made with no mode set"]);
    const rows = await threadsJson(sb);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: t.thread_id, mode: "delta", status: "success" });
    expect(e2e.server.requests).toHaveLength(1);

    for (const args of [["--thread", t.thread_id], ["--continue"]]) {
      const r = await runCli(sb, ["run", ...args, "continue it in full mode"], { env: FULL });
      expect(r.exitCode).toBe(2);
      const lines = r.stderr.split("\n").filter((l) => l.trim() !== "");
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toContain(t.thread_id);
      expect(lines[0]).toContain('"delta"');
      expect(lines[0]).toContain('"full"');
      expect(lines[0]).not.toMatch(/\n\s+at /);
      expect(r.stdout).toBe("");
    }
    // the same through .deerflowrc
    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ checkpoint: { channelMode: "full" } }));
    const fromFile = await runCli(sb, ["run", "--thread", t.thread_id, "again"]);
    expect(fromFile.exitCode).toBe(2);
    expect(fromFile.stderr).toContain(t.thread_id);
    expect(e2e.server.requests).toHaveLength(1);
    // the refused runs left the thread as it was
    expect((await threadsJson(sb, DELTA))[0]).toMatchObject({ id: t.thread_id, mode: "delta", status: "success" });
  }, 60_000);

  it("a delta thread continues fine in delta mode, with the whole history", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ content: "one" }, { content: "two" }, { content: "three" });
    const t = await run(sb, ["turn one"], DELTA);
    const t2 = await run(sb, ["--continue", "turn two"]);
    const t3 = await run(sb, ["--thread", t.thread_id, "turn three"], DELTA);
    expect([t2.thread_id, t3.thread_id]).toEqual([t.thread_id, t.thread_id]);
    expect(t3.final_text).toBe("three");
    expect(conversation(e2e.server.requests[2]!)).toEqual(["user: turn one", "assistant: one", "user: turn two", "assistant: two", "user: turn three"]);
    const rows = await threadsJson(sb, DELTA);
    expect(rows).toEqual([expect.objectContaining({ id: t.thread_id, mode: "delta", status: "success" })]);
  }, 60_000);

  it("an old full thread opens in full mode when no mode is set (run --thread, --continue, threads show) and stays full; asking for delta explicitly is refused", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ content: "full one" }, { content: "full two" }, { content: "full three" });
    const t = await run(sb, ["made in full mode"], FULL);
    const t2 = await run(sb, ["--thread", t.thread_id, "turn two"]);
    const t3 = await run(sb, ["--continue", "turn three"]);
    expect([t2.thread_id, t3.thread_id]).toEqual([t.thread_id, t.thread_id]);
    expect(conversation(e2e.server.requests[2]!)).toEqual(["user: made in full mode", "assistant: full one", "user: turn two", "assistant: full two", "user: turn three"]);
    const shown = await runCli(sb, ["threads", "show", t.thread_id]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("full three");
    // every checkpoint of it is still marked full: the thread never mixed modes
    const db = new Database(join(sb.home, DB_FILE), { readonly: true });
    try {
      const modes = db.prepare("SELECT DISTINCT json_extract(CAST(metadata AS TEXT), '$.deerflow_channel_mode') AS m FROM checkpoints WHERE thread_id = ?").all(t.thread_id);
      expect(modes).toEqual([{ m: "full" }]);
    } finally {
      db.close();
    }
    // a new thread next to it is delta
    e2e.server.push({ content: "fresh" });
    const fresh = await run(sb, ["a new one"]);
    expect((await threadsJson(sb)).find((r) => r.id === fresh.thread_id)).toMatchObject({ mode: "delta" });

    const r = await runCli(sb, ["run", "--thread", t.thread_id, "now delta"], { env: DELTA });
    expect(r.exitCode).toBe(2);
    const lines = r.stderr.split("\n").filter((l) => l.trim() !== "");
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toContain(t.thread_id);
    expect(lines[0]).toContain('"full"');
    expect(lines[0]).toContain('"delta"');
    expect(e2e.server.requests).toHaveLength(4);
  }, 90_000);
});
