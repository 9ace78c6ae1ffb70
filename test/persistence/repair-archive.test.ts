// `doctor --repair` carries the message archive (compacted originals that read_history reads back) into the
// repaired file, and a database from before the archive existed repairs without reporting a missing table.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { MessageArchive } from "../../src/persistence/message-archive.js";
import { repairDatabase } from "../../src/persistence/repair.js";
import { DeerflowSqliteSaver } from "../../src/persistence/sqlite-saver.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), "deerflow-repair-archive-"));
  dirs.push(dir);
  return join(dir, "deerflow.sqlite");
}

describe("repairDatabase and the message archive", () => {
  it("copies every archived message; read_history's queries find them in the repaired file", () => {
    const path = tempDb();
    const saver = DeerflowSqliteSaver.open(path, { channelMode: "full" });
    const archive = new MessageArchive(saver.db);
    archive.put(
      "t1",
      "cp-1",
      Array.from({ length: 250 }, (_, i) => ({ message_id: `m${i}`, role: i % 2 ? "assistant" : "user", name: null, text: `message ${i} about FILE-${i}` })),
    );
    archive.put("t2", null, [{ message_id: "x", role: "tool", name: "bash", text: "ls output" }]);
    saver.close();

    const report = repairDatabase(path);
    expect(report.rows.message_archive).toEqual({ copied: 251, unreadable: 0 });
    const db = new Database(path, { readonly: true });
    try {
      const repaired = new MessageArchive(db);
      expect(repaired.count("t1")).toBe(250);
      expect(repaired.range("t1", 100, 101).map((m) => m.text)).toEqual(["message 99 about FILE-99", "message 100 about FILE-100"]);
      expect(repaired.search("t2", "ls out", 5).map((m) => m.name)).toEqual(["bash"]);
    } finally {
      db.close();
    }
  });

  it("a file from before the archive: no message_archive row in the report (not called unreadable)", () => {
    const path = tempDb();
    DeerflowSqliteSaver.open(path, { channelMode: "full" }).close();
    // Opening makes every table now; the file as it was before the archive existed has none.
    const old = new Database(path);
    old.exec("DROP TABLE message_archive");
    old.close();
    const report = repairDatabase(path);
    expect(report.rows.message_archive).toBeUndefined();
    expect(report.rows.checkpoints).toEqual({ copied: 0, unreadable: 0 });
  });
});
