// The debug log itself: JSON lines, secrets masked in every string, bounded by rotation (one previous file kept),
// silent when no log is open, and never a failure of the work it describes.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { closeDebugLog, debugLog, debugLogFile, debugTimer, openDebugLog } from "../../src/model/debug-log.js";

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "deerflow-debug-log-"));
  file = join(dir, "logs", "debug.jsonl");
});
afterEach(() => {
  closeDebugLog();
  rmSync(dir, { recursive: true, force: true });
});

const lines = (f = file) =>
  readFileSync(f, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("the debug log", () => {
  it("writes one JSON object per line with a timestamp and the event, in a 0600 file", () => {
    openDebugLog({ file });
    debugLog("model.request", { model: "m", messages: 3, status: 200 });
    debugLog("tool.call", { tool: "bash", exit_code: 2 });
    expect(lines()).toEqual([
      { ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), event: "model.request", model: "m", messages: 3, status: 200 },
      { ts: expect.any(String), event: "tool.call", tool: "bash", exit_code: 2 },
    ]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("masks key shapes, URL passwords and the exact credential values it was given, at any depth", () => {
    const known = "hunter2-very-long-password";
    openDebugLog({ file, secrets: [known] });
    debugLog("cli.error", {
      error: `HTTP 401 for key sk-proj-abcdefghijklmnopqrstuvwx at postgres://me:${known}@db/x`,
      nested: { list: [`token ${known}`, "ghp_0123456789abcdefghijklmnopqrstuvwxyz"] },
    });
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(known);
    expect(text).not.toContain("sk-proj-abcdefghijklmnopqrstuvwx");
    expect(text).not.toContain("ghp_0123456789abcdefghijklmnopqrstuvwxyz");
    expect(lines()[0]).toMatchObject({ error: expect.stringContaining("HTTP 401 for key"), nested: { list: ["token ***", expect.any(String)] } });
  });

  it("rotates past its size: the full file becomes <file>.1 (replacing the older one), so at most two files exist", () => {
    openDebugLog({ file, maxBytes: 400 });
    for (let i = 0; i < 30; i++) debugLog("tick", { i, pad: "x".repeat(40) });
    expect(statSync(file).size).toBeLessThanOrEqual(400);
    expect(statSync(`${file}.1`).size).toBeLessThanOrEqual(400);
    expect(existsSync(`${file}.2`)).toBe(false);
    const kept = [...lines(`${file}.1`), ...lines()].map((l) => l.i);
    // The newest lines survive in order; the oldest went with the replaced file.
    expect(kept.at(-1)).toBe(29);
    expect(kept).toEqual([...kept].sort((a, b) => Number(a) - Number(b)));
    expect(kept[0]).toBeGreaterThan(0);
  });

  it("continues an existing file and counts its size", () => {
    openDebugLog({ file, maxBytes: 10_000 });
    debugLog("first");
    closeDebugLog();
    openDebugLog({ file, maxBytes: 10_000 });
    debugLog("second");
    expect(lines().map((l) => l.event)).toEqual(["first", "second"]);
  });

  it("does nothing when no log is open, and a log that can no longer be written never throws", () => {
    expect(debugLogFile()).toBeUndefined();
    debugLog("nobody-listens");
    debugTimer("nor-here")({ status: 1 });
    expect(existsSync(file)).toBe(false);
    openDebugLog({ file });
    rmSync(dir, { recursive: true, force: true });
    expect(() => debugLog("after-the-folder-went")).not.toThrow();
  });

  it("a timer logs once, with its duration and the fields known at the end", () => {
    openDebugLog({ file });
    const done = debugTimer("model.request", { model: "m" });
    done({ status: 200 });
    done({ error: "late second end" });
    expect(lines()).toEqual([{ ts: expect.any(String), event: "model.request", model: "m", status: 200, duration_ms: expect.any(Number) }]);
  });

  it("refuses at open a file it cannot write", () => {
    writeFileSync(join(dir, "a-file"), "");
    expect(() => openDebugLog({ file: join(dir, "a-file", "debug.jsonl") })).toThrow(/ENOTDIR|EEXIST/);
    expect(debugLogFile()).toBeUndefined();
  });

  it("never writes through a link: one at the name is refused at open, one swapped in later gets nothing (the twenty-third pass's A23-6)", () => {
    const bashrc = join(dir, "bashrc");
    writeFileSync(bashrc, "# the user's\n");
    mkdirSync(join(dir, "logs"), { recursive: true });
    symlinkSync(bashrc, file);
    expect(() => openDebugLog({ file })).toThrow(/symbolic link/);
    unlinkSync(file);
    openDebugLog({ file, maxBytes: 400 });
    debugLog("before");
    // The model replaces the log with a link to the user's start-up file; the run goes on logging, and rotates.
    unlinkSync(file);
    symlinkSync(bashrc, file);
    for (let i = 0; i < 20; i++) debugLog("audit", { command: `curl https://example.com/$(touch /tmp/pwned-${i})` });
    expect(readFileSync(bashrc, "utf8")).toBe("# the user's\n");
  });

  it("refuses a name that is not a regular file", () => {
    mkdirSync(file, { recursive: true });
    expect(() => openDebugLog({ file })).toThrow(/EISDIR|not a regular file/);
  });

  it("does not rotate into a folder swapped for a link since it opened (the twenty-fourth pass's A24-2)", () => {
    const elsewhere = join(dir, "bashrc.d");
    mkdirSync(elsewhere);
    openDebugLog({ file, maxBytes: 300 });
    debugLog("first");
    renameSync(join(dir, "logs"), join(dir, "logs.old"));
    symlinkSync(elsewhere, join(dir, "logs"));
    for (let i = 0; i < 20; i++) debugLog("audit", { command: `curl https://example.com/$(touch /tmp/pwned-${i})` });
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});
