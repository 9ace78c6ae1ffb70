// The thread and the files after a failed run: the conversation is rolled back, the files the run changed are kept,
// the user is told which (stderr in text mode, `files.kept` in stream-json), and the next run's model is told once,
// in a hidden reminder. The failed stream-json run is the built CLI (spawned: its stdout's last lines and exit code on
// the error path are the contract); the rest runs in-process: what is tested there is the output and the requests.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import type { RecordedRequest } from "../support/openai-server.js";

const e2e = useE2E();
const reminders = (req: RecordedRequest) =>
  (req.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === "user" && JSON.stringify(m.content).includes("files it changed were kept"));

describe("a failed run's files", () => {
  it("are kept and named to the user; the next run's model is reminded once, and only once", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "hello" });
    const first = JSON.parse((await runCli(sb, ["run", "--output-format", "json", "hi"])).stdout);
    e2e.server.push({ toolCalls: [{ id: "w", name: "write_file", args: { path: "x.txt", content: "half done\n" } }] }, { status: 400, error: "bad request" });
    const failed = await runCli(sb, ["run", "--thread", first.thread_id, "write x.txt"]);
    expect(failed.exitCode).toBe(1);
    const file = join(sb.cwd, "x.txt");
    expect(readFileSync(file, "utf8")).toBe("half done\n");
    expect(failed.stderr).toContain(`the files it changed are kept: ${JSON.stringify(file)}`);

    e2e.server.push({ content: "checked" });
    const next = await runCli(sb, ["run", "--thread", first.thread_id, "go on"]);
    expect(next.exitCode, next.stderr).toBe(0);
    const told = reminders(e2e.server.requests.at(-1)!);
    expect(told).toHaveLength(1);
    expect(told[0]!.content).toContain('- "x.txt"');

    e2e.server.push({ content: "again" });
    await runCli(sb, ["run", "--thread", first.thread_id, "and again"]);
    expect(reminders(e2e.server.requests.at(-1)!)).toHaveLength(1); // the same message in the history, not a new one
    // The user never sees the reminder in the thread.
    const shown = await runCli(sb, ["threads", "show", first.thread_id]);
    expect(shown.stdout).not.toContain("files it changed were kept");
  });

  it("stream-json: a files.kept event before the error (spawned CLI); a failed run that changed nothing says nothing", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ toolCalls: [{ id: "w", name: "write_file", args: { path: "y.txt", content: "y\n" } }] }, { status: 400, error: "bad request" });
    const r = await sb.run(["run", "--output-format", "stream-json", "write y.txt"]);
    expect(r.exitCode).toBe(1);
    const types = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const kept = types.find((e) => e.type === "files.kept");
    expect(kept.files).toEqual([join(sb.cwd, "y.txt")]);
    expect(types.map((e) => e.type).slice(-3)).toEqual(["files.kept", "error", "run.completed"]);
    expect(existsSync(join(sb.cwd, "y.txt"))).toBe(true);

    e2e.server.push({ status: 400, error: "bad request" });
    const quiet = await runCli(sb, ["run", "--output-format", "stream-json", "fail at once"]);
    expect(quiet.stdout).not.toContain("files.kept");
  });
});
