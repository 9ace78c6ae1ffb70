// A user message larger than the model's whole context window: no compaction can make it fit, so it is refused
// before it is sent (the provider would answer an opaque 400 after the upload), with one line that says how big it
// was and what to do; the thread keeps everything before it and goes on.
import { describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";

const e2e = useE2E();

describe("a message bigger than the context window", () => {
  it("is refused before any request carries it; the thread goes on", async () => {
    const sb = e2e.sandbox();
    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ models: { "test-model": { model: "test-model", contextWindow: 8192 } } }));
    e2e.server.setScript(() => ({ content: "hello back" }));
    const first = await runCli(sb, ["run", "--yes", "-w", sb.cwd, "--output-format", "json", "hello"]);
    expect(first.exitCode, first.stderr).toBe(0);
    const thread = JSON.parse(first.stdout).thread_id as string;
    const sent = e2e.server.requests.length;

    const huge = `please look at this log:\n${"ERROR 2026-11-30 something failed at step 12345 in module x\n".repeat(2000)}`;
    const r = await runCli(sb, ["run", "--yes", "--thread", thread, huge]);
    expect(r.exitCode).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines.at(-1)).toMatch(/too long for the model.s context window/);
    expect(r.stderr).toMatch(/8,192|8192/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(e2e.server.requests.slice(sent).some((q) => JSON.stringify(q.body).includes("step 12345"))).toBe(false);

    const next = await runCli(sb, ["run", "--yes", "--thread", thread, "--output-format", "json", "short one"]);
    expect(next.exitCode, next.stderr).toBe(0);
    const last = e2e.server.requests.at(-1)!;
    expect(JSON.stringify(last.body)).toContain("hello");
    expect(JSON.stringify(last.body)).not.toContain("step 12345");
  });
});
