// The debug log's contract on the command line: `--debug` writes JSON lines to <home>/logs/debug.jsonl (before or
// after the command's name), `DEERFLOW_LOG=<file>` to that file; a log that cannot be written is one line, exit 2.
// What the lines hold is proven in-process (test/runtime/debug-log.test.ts, test/model/debug-log.test.ts).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";

const e2e = useE2E();
const events = (file: string) =>
  readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("--debug and DEERFLOW_LOG", () => {
  it("--debug writes the invocation's lines under the data home; DEERFLOW_LOG names another file", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "Hello." }, { content: "Again." });
    const r = await sb.run(["--debug", "run", "hi"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("Hello.\n");
    const file = join(sb.home, "logs", "debug.jsonl");
    const log = events(file);
    expect(log[0]).toMatchObject({ event: "cli.start", command: "run", version: expect.any(String) });
    expect(log.find((l) => l.event === "model.request" && l.status === 200)).toMatchObject({ model: "test-model" });
    expect(log.find((l) => l.event === "run.ended")).toMatchObject({ status: "success" });
    expect(log.at(-1)).toMatchObject({ event: "cli.exit", exit_code: 0, duration_ms: expect.any(Number) });
    expect(readFileSync(file, "utf8")).not.toContain("sk-test-key-123456");

    const named = join(sb.cwd, "mine.jsonl");
    const again = await sb.run(["run", "--debug", "--output-format", "json", "again"], { env: { DEERFLOW_LOG: named } });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(events(named).map((l) => l.event)).toEqual(expect.arrayContaining(["cli.start", "run.started", "run.ended", "cli.exit"]));
    expect(events(file).filter((l) => l.event === "cli.start")).toHaveLength(1);
  });

  it("a DEERFLOW_LOG that cannot be written is one line naming it, exit 2, and nothing runs", async () => {
    const sb = e2e.sandbox();
    writeFileSync(join(sb.cwd, "a-file"), "");
    const bad = join(sb.cwd, "a-file", "debug.jsonl");
    const r = await sb.run(["run", "hi"], { env: { DEERFLOW_LOG: bad } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trimEnd().split("\n")).toEqual([expect.stringContaining(`deerflow: Cannot write the debug log ${bad}`)]);
    expect(e2e.server.requests).toHaveLength(0);
    expect(existsSync(join(sb.home, "logs"))).toBe(false);
  });
});
