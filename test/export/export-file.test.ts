// writeExportFile, the one writer of `threads export -o` and the chat's `/export`: a link at the name is never written
// through, forced or not (the twenty-third pass's A23-7: the model planted `export.md -> ../victim` in the workspace).
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeExportFile } from "../../src/runtime/export-file.js";

function setUp() {
  const dir = mkdtempSync(join(tmpdir(), "deerflow-export-file-"));
  const victim = join(dir, "victim.txt");
  writeFileSync(victim, "# the user's\n");
  const ws = join(dir, "ws");
  mkdirSync(ws);
  symlinkSync(victim, join(ws, "export.md"));
  return { dir, victim, ws, out: join(ws, "export.md") };
}

describe("writeExportFile", () => {
  it("without --force refuses a link at the name as an existing file", () => {
    const { dir, victim, out } = setUp();
    expect(() => writeExportFile(out, "EXPORT", { forceHint: "-", dataDir: join(dir, "data") })).toThrow(/already exists/);
    expect(readFileSync(victim, "utf8")).toBe("# the user's\n");
  });

  it("with --force replaces the link by a file of its own, leaving the link's target and no temporary file", () => {
    const { dir, victim, ws, out } = setUp();
    writeExportFile(out, "EXPORT", { force: true, forceHint: "-", dataDir: join(dir, "data") });
    expect(readFileSync(victim, "utf8")).toBe("# the user's\n");
    expect(lstatSync(out).isFile()).toBe(true);
    expect(readFileSync(out, "utf8")).toBe("EXPORT");
    expect(lstatSync(out).mode & 0o777).toBe(0o600);
    expect(readdirSync(ws)).toEqual(["export.md"]);
  });

  it("with --force still refuses a folder in one line", () => {
    const { dir, ws } = setUp();
    mkdirSync(join(ws, "d"));
    expect(() => writeExportFile(join(ws, "d"), "EXPORT", { force: true, forceHint: "-", dataDir: join(dir, "data") })).toThrow(/is a folder/);
  });

  it("refuses a folder on the way that is a link in the workspace (the twenty-fourth pass's A24-6)", () => {
    const { dir, ws } = setUp();
    const elsewhere = join(dir, "home-autostart");
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(ws, "out"));
    expect(() => writeExportFile(join(ws, "out", "report.md"), "EXPORT", { forceHint: "-", dataDir: join(dir, "data"), workspace: ws })).toThrow(
      /Cannot write .*report\.md: it leads through .*out \(a link to .*home-autostart\)/,
    );
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});
