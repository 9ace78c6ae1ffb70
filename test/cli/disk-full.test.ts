// A full disk during a run (a real tmpfs of a few hundred KB as the data directory): the run fails with one line
// naming the file, and the thread is exactly as before the run — verified by reading it back once space is freed
// (the next run's request to the model holds neither the failed input nor its answer). Needs root for `mount`:
// skipped for other users (CI runs as root, where a mount that fails is a test failure, not a skip).
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { runCli } from "../support/cli-in-process.js";

const e2e = useE2E();

async function threadStatus(sb: Sandbox, env: Record<string, string>, threadId: string): Promise<string | undefined> {
  const list = JSON.parse((await runCli(sb, ["threads", "--json"], { env })).stdout) as { id: string; status: string }[];
  return list.find((t) => t.id === threadId)?.status;
}

/** The next run on the thread sees it exactly as after its first run: neither the failed input nor its answer. */
async function expectAsBeforeTheRun(sb: Sandbox, env: Record<string, string>, threadId: string, failedAnswer: string): Promise<void> {
  e2e.server.push({ content: "after the disk was freed" });
  const next = await runCli(sb, ["run", "--thread", threadId, "next input"], { env });
  expect(next.exitCode, next.stderr).toBe(0);
  const sent = JSON.stringify(e2e.server.requests.at(-1)!.body.messages);
  expect(sent).toContain("first answer");
  expect(sent).not.toContain("the failing input");
  expect(sent).not.toContain(failedAnswer);
}
const mountPoint = mkdtempSync(join(tmpdir(), "deerflow-full-"));
const mountPoint2 = mkdtempSync(join(tmpdir(), "deerflow-full-"));
const AS_ROOT = process.getuid?.() === 0;
let mounted = false;

beforeAll(async () => {
  if (!AS_ROOT) return;
  await execa("mount", ["-t", "tmpfs", "-o", "size=1500k", "tmpfs", mountPoint]);
  await execa("mount", ["-t", "tmpfs", "-o", "size=20m", "tmpfs", mountPoint2]);
  mounted = true;
});

/** A thread with one good run whose data directory is `home`. */
async function threadWithOneRun(home: string): Promise<{ sb: Sandbox; env: Record<string, string>; threadId: string }> {
  const sb = e2e.sandbox();
  const env = { DEERFLOW_HOME: home };
  e2e.server.push({ content: "first answer" });
  const first = await runCli(sb, ["run", "--output-format", "json", "first input"], { env });
  expect(first.exitCode, first.stdout + first.stderr).toBe(0);
  return { sb, env, threadId: JSON.parse(first.stdout).thread_id as string };
}

afterAll(async () => {
  for (const m of [mountPoint, mountPoint2]) {
    if (mounted) await execa("umount", [m], { reject: false });
    rmSync(m, { recursive: true, force: true });
  }
});

/** Writes a file until the file system is full (ENOSPC); returns its path. */
function fillUp(dir: string): string {
  const path = join(dir, "filler");
  const fd = openSync(path, "w");
  const block = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
    // Fill the last partial block too.
    try {
      for (;;) writeSync(fd, block.subarray(0, 512));
    } catch {}
  } finally {
    closeSync(fd);
  }
  return path;
}

describe("disk full", () => {
  it.skipIf(!AS_ROOT)(
    "a store failure mid-run rolls the thread back (checked after space is freed)",
    async () => {
      const home = join(mountPoint, "home");
      const { sb, env, threadId } = await threadWithOneRun(home);

      // Under the model layer's 2,000,000-character answer cap, over what is left of the 1.5 MB disk (the pre-run snapshot and run records take their share first; since hook fusion the answer is stored about once, so the disk must be smaller than one copy).
      // Random text: stored values are deflated (persistence/value-compression.ts), and a repeated letter would fit.
      e2e.server.push({ content: `HUGE:${randomBytes(1_450_000).toString("base64")}` });
      const failed = await runCli(sb, ["run", "--thread", threadId, "the failing input"], { env });
      expect(failed.exitCode).toBe(1);
      expect(failed.stderr).toContain(join(home, "deerflow.sqlite"));
      expect(failed.stderr).not.toMatch(/internal error/i);
      expect(failed.stderr).toMatch(/rolled back|undone the next time the thread is opened/);

      await execa("mount", ["-o", "remount,size=20m", mountPoint]);
      expect(await threadStatus(sb, env, threadId)).toBe("error");
      await expectAsBeforeTheRun(sb, env, threadId, "HUGE:");
    },
    180_000,
  );

  it.skipIf(!AS_ROOT)(
    "when even the rollback cannot be written, the next open undoes the run (thread as before, run failed)",
    async () => {
      const home = join(mountPoint2, "home");
      const { sb, env, threadId } = await threadWithOneRun(home);

      // The run has stored its input and is streaming the answer when the disk fills up (another program's doing):
      // the answer's checkpoint cannot be written, and neither can the rollback.
      e2e.server.push({ content: "an answer that arrives while the disk fills up", chunkDelayMs: 30 });
      const child = sb.spawn(["run", "--thread", threadId, "--output-format", "stream-json", "the failing input"], { env });
      let filler = "";
      let buf = "";
      child.stdout!.on("data", (d: Buffer) => {
        buf += d.toString();
        if (!filler && buf.includes('"type":"message.delta"')) filler = fillUp(mountPoint2);
      });
      const failed = await child;
      const stderr = String(failed.stderr);
      expect(filler, stderr).not.toBe("");
      expect(failed.exitCode, stderr).toBe(1);
      expect(stderr).toContain(join(home, "deerflow.sqlite"));
      expect(stderr).not.toMatch(/internal error|\n\s+at /i);
      expect(stderr).toMatch(/undone the next time the thread is opened/);

      // Space comes back; the next command that opens the store finishes the rollback.
      rmSync(filler);
      expect(await threadStatus(sb, env, threadId)).toBe("error");
      const db = new Database(join(home, "deerflow.sqlite"), { readonly: true });
      const runs = db.prepare("SELECT status, error FROM runs WHERE thread_id = ? ORDER BY started_at, rowid").all(threadId) as { status: string; error: string }[];
      db.close();
      expect(runs.map((r) => r.status)).toEqual(["success", "error"]);
      expect(runs[1]!.error).toMatch(/full|rolled back/);
      await expectAsBeforeTheRun(sb, env, threadId, "while the disk fills up");
    },
    180_000,
  );

  it.skipIf(!AS_ROOT)(
    "a data directory on a disk that is full from the start: one typed line naming the file, exit 1, then works once freed",
    async () => {
      const mp = mkdtempSync(join(tmpdir(), "deerflow-full0-"));
      await execa("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mp]);
      try {
        const sb = e2e.sandbox();
        const home = join(mp, "home");
        mkdirSync(home);
        const filler = fillUp(mp);
        const env = { DEERFLOW_HOME: home };
        // Spawned: the mount is unmounted at the end, and a process that has exited holds nothing open on it.
        for (const args of [["run", "hi"], ["threads"]]) {
          const r = await sb.run(args, { env });
          expect(r.exitCode, r.stderr).toBe(1);
          expect(r.stderr).toContain(`Could not write to ${join(home, "deerflow.sqlite")}`);
          expect(r.stderr).toMatch(/Nothing was changed.*Free disk space/s);
          expect(r.stderr).not.toMatch(/internal error|\n\s+at /i);
        }
        expect(e2e.server.requests).toHaveLength(0);
        rmSync(filler);
        e2e.server.push({ content: "room now" });
        const ok = await sb.run(["run", "hi"], { env });
        expect(ok.exitCode, ok.stderr).toBe(0);
        expect(ok.stdout).toBe("room now\n");
      } finally {
        await execa("umount", [mp], { reject: false });
        rmSync(mp, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
