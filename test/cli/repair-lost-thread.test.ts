// A thread whose whole history `doctor --repair` could not read is marked lost: `run --thread` refuses it with one
// line (it used to run from an empty conversation, as if the thread were new), the listing says so, and the
// threads that survived go on. The damage is real: every checkpoint of one thread is gone from a real SQLite file
// before the repair copies it (the repair itself is the one doctor runs).
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import Database from "better-sqlite3";
import { useE2E } from "../support/e2e.js";
import { repairDatabase } from "../../src/persistence/repair.js";

const e2e = useE2E();

describe("a thread lost in a repair", () => {
  it("is refused by run --thread with one line, listed as lost; the intact thread continues", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "kept answer" });
    const kept = JSON.parse((await sb.run(["run", "--output-format", "json", "first thread"])).stdout).thread_id as string;
    e2e.server.push({ content: "lost answer" });
    const lost = JSON.parse((await sb.run(["run", "--output-format", "json", "second thread"])).stdout).thread_id as string;

    const path = join(sb.home, "deerflow.sqlite");
    const db = new Database(path);
    for (const t of ["checkpoints", "writes", "checkpoint_blobs"]) db.prepare(`DELETE FROM ${t} WHERE thread_id = ?`).run(lost);
    db.close();
    const report = repairDatabase(path);
    expect(report.threads.find((t) => t.id === lost)?.state).toBe("lost");

    const sent = e2e.server.requests.length;
    const r = await sb.run(["run", "--thread", lost, "go on"]);
    expect(r.exitCode, r.stderr).toBe(2);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`Thread ${lost}'s history was lost when \`deerflow doctor --repair\` rebuilt the database`);
    expect(lines[0]).toMatch(/Start a new thread, or put back the backup/);
    expect(e2e.server.requests.length).toBe(sent);

    const list = await sb.run(["threads"]);
    expect(list.stdout).toMatch(new RegExp(`${lost}\\s+\\S+ \\S+\\s+lost`));

    e2e.server.push({ content: "still here" });
    const next = await sb.run(["run", "--thread", kept, "and now?"]);
    expect(next.exitCode, next.stderr).toBe(0);
    expect(JSON.stringify(e2e.server.requests.at(-1)!.body.messages)).toContain("kept answer");
  });
});
