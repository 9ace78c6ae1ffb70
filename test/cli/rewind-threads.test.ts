// End to end through the CLI: threads that share a workspace share its snapshot store, and nothing
// else. Two threads run on one repository at once and each rewinds only its own run; `threads rm` of the last one
// takes the store. And what the user changes while a run that started no tool works is the user's, not the run's.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { runCli } from "../support/cli-in-process.js";
import { gate, type RecordedRequest, type ScriptedReply } from "../support/openai-server.js";
import { userTexts } from "../support/requests.js";

const e2e = useE2E();

const bash = (id: string, command: string): ScriptedReply => ({ toolCalls: [{ id, name: "bash", args: { description: "write", command } }] });
const answered = (req: RecordedRequest) => (req.body.messages as { role: string }[]).at(-1)?.role === "tool";

async function rewind(sb: Sandbox, args: string[]) {
  const r = await runCli(sb, ["rewind", ...args, "--json"]);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe("threads that share a workspace", () => {
  it("run at once, each rewinds only its own run, and the last one deleted takes the store", async () => {
    const sb = e2e.sandbox();
    const ws = join(sb.userHome, "proj");
    mkdirSync(ws);
    writeFileSync(join(ws, "app.js"), "v1\n");
    // Both runs are working (snapshots taken, first model request sent) before either writes; b writes once a is done.
    const both = gate(2);
    let aDone!: () => void;
    const aFinished = new Promise<void>((resolve) => (aDone = resolve));
    e2e.server.setScript(async (req) => {
      const a = userTexts(req).some((t) => t.includes("thread a"));
      if (answered(req)) return { content: a ? "a wrote a.txt" : "b wrote b.txt" };
      expect(await both.arrive(a ? "a" : "b")).toBe(true);
      if (a) return bash("a1", "printf 'a\\n' > a.txt");
      await aFinished;
      return bash("b1", "printf 'b\\n' > b.txt");
    });
    // Two processes at once (in-process calls run one at a time).
    const runA = sb.run(["run", "--output-format", "json", "-w", ws, "thread a: write a.txt"]).then((r) => (aDone(), r));
    const runB = sb.run(["run", "--output-format", "json", "-w", ws, "thread b: write b.txt"]);
    const [ra, rb] = await Promise.all([runA, runB]);
    expect([ra.exitCode, rb.exitCode], ra.stderr + rb.stderr).toEqual([0, 0]);
    expect(ra.stderr + rb.stderr).not.toMatch(/snapshot/);
    const [a, b] = [JSON.parse(ra.stdout).thread_id as string, JSON.parse(rb.stdout).thread_id as string];
    expect(readdirSync(join(sb.home, "snapshots"))).toHaveLength(1);

    // a's rewind takes back a's file; b's (written after a's run ended) is not a's to take.
    expect((await rewind(sb, [a])).files).toMatchObject({ restored: ["a.txt"], edited: ["b.txt"] });
    expect([existsSync(join(ws, "a.txt")), readFileSync(join(ws, "b.txt"), "utf8")]).toEqual([false, "b\n"]);

    // a goes; the store stays for b, whose rewind still works.
    expect((await runCli(sb, ["threads", "rm", a])).exitCode).toBe(0);
    expect(readdirSync(join(sb.home, "snapshots"))).toHaveLength(1);
    expect((await rewind(sb, [b])).files).toMatchObject({ restored: ["b.txt"], edited: [] });
    expect(readdirSync(ws)).toEqual(["app.js"]);

    expect((await runCli(sb, ["threads", "rm", b])).exitCode).toBe(0);
    expect(readdirSync(join(sb.home, "snapshots"))).toEqual([]);
  }, 240_000);

  it("what the user changes while a run that started no tool works is left by a rewind", async () => {
    const sb = e2e.sandbox();
    const ws = join(sb.userHome, "proj");
    mkdirSync(ws);
    writeFileSync(join(ws, "app.js"), "v1\n");
    e2e.server.setScript(() => {
      // The user edits while the model answers.
      writeFileSync(join(ws, "app.js"), "mine\n");
      return { content: "Hello." };
    });
    const r = await runCli(sb, ["run", "--output-format", "json", "-w", ws, "hi"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = await rewind(sb, [JSON.parse(r.stdout).thread_id]);
    expect(out.files).toMatchObject({ restored: [], edited: ["app.js"] });
    expect(readFileSync(join(ws, "app.js"), "utf8")).toBe("mine\n");
  }, 120_000);
});
