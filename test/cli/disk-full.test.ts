// A full disk during a run (a real tmpfs of a few hundred KB as the data directory): the run fails with one line
// naming the file, and the thread is exactly as before the run — verified by reading it back once space is freed
// (the next run's request to the model holds neither the failed input nor its answer). Needs root for `mount`;
// skipped, saying why, when mounting is not permitted.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";

const e2e = useE2E();
const mountPoint = mkdtempSync(join(tmpdir(), "deerflow-full-"));
let mounted = false;
let why = "";

beforeAll(async () => {
  const r = await execa("mount", ["-t", "tmpfs", "-o", "size=1500k", "tmpfs", mountPoint], { reject: false });
  mounted = r.exitCode === 0;
  why = r.stderr || "mount failed";
});

afterAll(async () => {
  if (mounted) await execa("umount", [mountPoint], { reject: false });
  rmSync(mountPoint, { recursive: true, force: true });
});

describe("disk full", () => {
  it("a store failure mid-run rolls the thread back (checked after space is freed)", async (ctx) => {
    if (!mounted) ctx.skip(`cannot mount a small tmpfs to fill (${why.trim()}); run as root to test a full disk`);
    const sb = e2e.sandbox();
    const home = join(mountPoint, "home");
    const env = { DEERFLOW_HOME: home };
    e2e.server.push({ content: "first answer" });
    const first = await sb.run(["run", "--output-format", "json", "first input"], { env });
    expect(first.exitCode, first.stdout + first.stderr).toBe(0);
    const threadId = JSON.parse(first.stdout).thread_id as string;

    e2e.server.push({ content: `HUGE:${"z".repeat(3_000_000)}` });
    const failed = await sb.run(["run", "--thread", threadId, "the failing input"], { env });
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain(join(home, "deerflow.sqlite"));
    expect(failed.stderr).not.toMatch(/internal error/i);
    expect(failed.stderr).toMatch(/rolled back|undone the next time the thread is opened/);

    await execa("mount", ["-o", "remount,size=20m", mountPoint]);
    const list = JSON.parse((await sb.run(["threads", "--json"], { env })).stdout) as { id: string; status: string }[];
    expect(list.find((t) => t.id === threadId)?.status).toBe("error");
    e2e.server.push({ content: "after the disk was freed" });
    const next = await sb.run(["run", "--thread", threadId, "next input"], { env });
    expect(next.exitCode, next.stderr).toBe(0);
    const sent = JSON.stringify(e2e.server.requests.at(-1)!.body.messages);
    expect(sent).toContain("first answer");
    expect(sent).not.toContain("the failing input");
    expect(sent).not.toContain("HUGE:");
  });
});
