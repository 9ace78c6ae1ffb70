import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "@langchain/langgraph";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { ThreadPaths } from "../../src/sandbox/provider.js";
import { createFileTools, resetReadRecords } from "../../src/tools/file-tools.js";
import { call, makeRoot, makeThread, textOf } from "./helpers.js";

const [ls, glob, grep, readFile, writeFile, strReplace, presentFiles, viewImage] = createFileTools();
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f6d0cd0000000049454e44ae426082", "hex");

let root: string;
const roots: string[] = [];
let M: ThreadPaths;
let seq = 0;
const ws = (...p: string[]) => join(M.workspace_path, ...p);
const t = async (tool: unknown, args: Record<string, unknown>) => textOf(await call(tool, args, M));

beforeEach(() => {
  root = makeRoot();
  roots.push(root);
  M = makeThread(root, `T${++seq}`);
  resetReadRecords();
});
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

describe("read_file", () => {
  it("numbers lines, honours ranges and pages long files", async () => {
    writeFileSync(ws("f.txt"), Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
    const all = await t(readFile, { path: "f.txt" });
    expect(all.split("\n")[0]).toBe("     1→line 1");
    expect(all).toContain("  2000→line 2000");
    expect(all).not.toContain("→line 2001");
    expect(all).toMatch(/Showing lines 1-2000 of 2500.*start_line=2001/);
    const next = await t(readFile, { path: "/mnt/user-data/workspace/f.txt", start_line: 2001 });
    expect(next.split("\n")[0]).toBe("  2001→line 2001");
    expect(next).not.toContain("Showing");
    const range = await t(readFile, { path: "f.txt", start_line: 10, end_line: 12 });
    expect(range).toBe("    10→line 10\n    11→line 11\n    12→line 12");
    await expect(call(readFile, { path: "f.txt", start_line: 9999 }, M)).rejects.toThrow(/past the end.*2500 line/);
  });

  it("pages by bytes (200 KB) and reports binary files without dumping them", async () => {
    writeFileSync(ws("wide.txt"), Array.from({ length: 300 }, () => "x".repeat(1000)).join("\n"));
    const out = await t(readFile, { path: "wide.txt" });
    expect(Buffer.byteLength(out)).toBeLessThan(210 * 1024);
    expect(out).toMatch(/To read on, call read_file with start_line=\d+/);
    writeFileSync(ws("img.png"), PNG);
    expect(await t(readFile, { path: "img.png" })).toMatch(/binary file \(PNG image, \d+ bytes\).*view_image/);
    writeFileSync(ws("blob.bin"), Buffer.from([1, 2, 0, 3, 4]));
    expect(await t(readFile, { path: "blob.bin" })).toMatch(/binary file \(binary data, 5 bytes\)/);
    await expect(call(readFile, { path: "missing.txt" }, M)).rejects.toThrow(/does not exist/);
    await expect(call(readFile, { path: "." }, M)).rejects.toThrow(/directory/);
  });
});

describe("write_file", () => {
  it("creates files (and parents), appends, and caps content at 80 KB", async () => {
    expect(await t(writeFile, { path: "a/b/c.txt", content: "one\n" })).toBe("Created /mnt/user-data/workspace/a/b/c.txt (4 bytes).");
    expect(await t(writeFile, { path: "a/b/c.txt", content: "two\n", append: true })).toMatch(/Appended/);
    expect(readFileSync(ws("a/b/c.txt"), "utf8")).toBe("one\ntwo\n");
    const big = "x".repeat(80 * 1024 + 1);
    await expect(call(writeFile, { path: "big.txt", content: big }, M)).rejects.toThrow(/content is 81921 bytes; the cap is 81920 bytes \(80 KB\)/);
    expect(existsSync(ws("big.txt"))).toBe(false);
    expect(await t(writeFile, { path: "/mnt/user-data/outputs/r.md", content: "# r" })).toMatch(/Created \/mnt\/user-data\/outputs\/r\.md/);
  });

  it("ReadBeforeWrite: overwriting needs a read of the current version", async () => {
    writeFileSync(ws("e.txt"), "existing\n");
    await expect(call(writeFile, { path: "e.txt", content: "new" }, M)).rejects.toThrow(/read \/mnt\/user-data\/workspace\/e\.txt first/);
    await t(readFile, { path: "e.txt" });
    expect(await t(writeFile, { path: "e.txt", content: "new\n" })).toMatch(/Overwrote/);
    // Its own write counts as read: a second overwrite is fine.
    expect(await t(writeFile, { path: "e.txt", content: "newer\n" })).toMatch(/Overwrote/);
    // Changed behind the agent's back (e.g. by bash): refused until read again.
    writeFileSync(ws("e.txt"), "changed by bash\n");
    await expect(call(writeFile, { path: "e.txt", content: "x" }, M)).rejects.toThrow(/changed since you read it/);
    await t(readFile, { path: "e.txt" });
    expect(await t(writeFile, { path: "e.txt", content: "x" })).toMatch(/Overwrote/);
    // Another thread's read does not count.
    writeFileSync(ws("o.txt"), "o\n");
    await call(readFile, { path: "o.txt" }, M, "other-thread");
    await expect(call(writeFile, { path: "o.txt", content: "x" }, M)).rejects.toThrow(/first/);
  });
});

describe("str_replace", () => {
  it("replaces exactly one match; reports counts with line numbers; replace_all", async () => {
    writeFileSync(ws("s.txt"), "foo\nbar\nfoo\nbaz\nfoo\n");
    await expect(call(strReplace, { path: "s.txt", old_str: "bar", new_str: "B" }, M)).rejects.toThrow(/first/);
    await t(readFile, { path: "s.txt" });
    await expect(call(strReplace, { path: "s.txt", old_str: "foo", new_str: "F" }, M)).rejects.toThrow(/matches 3 times .* at lines 1, 3, 5/);
    await expect(call(strReplace, { path: "s.txt", old_str: "nope", new_str: "F" }, M)).rejects.toThrow(/not found .*0 matches/);
    expect(await t(strReplace, { path: "s.txt", old_str: "bar", new_str: "B$&" })).toMatch(/Replaced 1 occurrence .*line 2/);
    expect(readFileSync(ws("s.txt"), "utf8")).toBe("foo\nB$&\nfoo\nbaz\nfoo\n");
    expect(await t(strReplace, { path: "s.txt", old_str: "foo", new_str: "F", replace_all: true })).toMatch(/Replaced 3 occurrences/);
    expect(readFileSync(ws("s.txt"), "utf8")).toBe("F\nB$&\nF\nbaz\nF\n");
  });
});

describe("git's own directory (issue 26, second pass)", () => {
  it("write_file and str_replace refuse .git/config, .git/hooks/* and a .git file; reading stays allowed", async () => {
    mkdirSync(ws(".git/hooks"), { recursive: true });
    writeFileSync(ws(".git/config"), "[core]\n");
    await t(readFile, { path: ".git/config" });
    const refused = /inside git's own directory \(\.git: its config and hooks run commands on your host\); the file tools do not write there/;
    await expect(call(writeFile, { path: ".git/config", content: "[core]\n\tfsmonitor = touch m\n" }, M)).rejects.toThrow(refused);
    await expect(call(writeFile, { path: ".git/config", content: "x", append: true }, M)).rejects.toThrow(refused);
    await expect(call(strReplace, { path: ".git/config", old_str: "[core]", new_str: "[core]\n\tfsmonitor = touch m" }, M)).rejects.toThrow(refused);
    await expect(call(writeFile, { path: "/mnt/user-data/workspace/.git/hooks/post-commit", content: "#!/bin/sh\nid\n" }, M)).rejects.toThrow(refused);
    await expect(call(writeFile, { path: "sub/.GIT/hooks/pre-commit", content: "id" }, M)).rejects.toThrow(refused);
    await expect(call(writeFile, { path: "sub/.git", content: "gitdir: /tmp/evil\n" }, M)).rejects.toThrow(refused);
    expect(readFileSync(ws(".git/config"), "utf8")).toBe("[core]\n");
    expect(existsSync(ws(".git/hooks/post-commit"))).toBe(false);
    expect(existsSync(ws("sub"))).toBe(false);
    // Names that only look alike are ordinary files.
    expect(await t(writeFile, { path: ".github/workflows/ci.yml", content: "on: push\n" })).toMatch(/Created/);
    expect(await t(writeFile, { path: ".gitignore", content: "dist\n" })).toMatch(/Created/);
  });

  it("refuses writes inside a git directory under another name (bare, --separate-git-dir): its config runs commands too", async () => {
    for (const d of ["gd/objects", "gd/refs/heads", "gd/hooks"]) mkdirSync(ws(d), { recursive: true });
    writeFileSync(ws("gd/HEAD"), "ref: refs/heads/main\n");
    const refused = /gd\/config is inside a git directory \(.*gd: its config and hooks run commands on your host\); the file tools do not write there/;
    await expect(call(writeFile, { path: "gd/config", content: "[core]\n\tfsmonitor = touch m\n" }, M)).rejects.toThrow(refused);
    await expect(call(writeFile, { path: "gd/hooks/post-checkout", content: "#!/bin/sh\nid\n" }, M)).rejects.toThrow(/inside a git directory/);
    expect(existsSync(ws("gd/config"))).toBe(false);
    // A folder that merely holds a HEAD file, or an ordinary project folder, is not one.
    mkdirSync(ws("notes"), { recursive: true });
    writeFileSync(ws("notes/HEAD"), "x");
    expect(await t(writeFile, { path: "notes/config", content: "ok\n" })).toMatch(/Created/);
  });

  it("refuses a write that reaches .git through a symlinked directory, leaving nothing behind", async () => {
    mkdirSync(ws(".git/hooks"), { recursive: true });
    symlinkSync(".git/hooks", ws("h"));
    await expect(call(writeFile, { path: "h/post-commit", content: "#!/bin/sh\nid\n" }, M)).rejects.toThrow(/git's own directory/);
    expect(existsSync(ws(".git/hooks/post-commit"))).toBe(false);
  });
});

describe("ls / glob / grep", () => {
  beforeEach(() => {
    mkdirSync(ws("src/deep/deeper"), { recursive: true });
    mkdirSync(ws("node_modules/pkg"), { recursive: true });
    writeFileSync(ws("README.md"), "Hello World\n");
    writeFileSync(ws("src/a.ts"), "export const a = 1; // TODO fix\n");
    writeFileSync(ws("src/b.js"), "todo: b\nTODO again\n");
    writeFileSync(ws("src/deep/c.ts"), "const c = 'todo';\n");
    writeFileSync(ws("src/deep/deeper/d.ts"), "TODO deep\n");
    writeFileSync(ws("src/bin.dat"), Buffer.from("TODO\0binary"));
    writeFileSync(ws("node_modules/pkg/i.ts"), "TODO vendored\n");
  });

  it("ls lists two levels with virtual paths", async () => {
    const out = (await t(ls, { path: "/mnt/user-data/workspace" })).split("\n");
    expect(out).toContain("/mnt/user-data/workspace/src/");
    expect(out).toContain("/mnt/user-data/workspace/src/a.ts");
    expect(out).toContain("/mnt/user-data/workspace/src/deep/");
    expect(out.some((l) => l.includes("c.ts"))).toBe(false);
    expect(out.join("\n")).not.toContain(root);
  });

  it("glob matches patterns, include_dirs, max_results, skips node_modules", async () => {
    expect((await t(glob, { pattern: "**/*.ts" })).split("\n")).toEqual([
      "/mnt/user-data/workspace/src/a.ts",
      "/mnt/user-data/workspace/src/deep/c.ts",
      "/mnt/user-data/workspace/src/deep/deeper/d.ts",
    ]);
    expect(await t(glob, { pattern: "*.ts", path: "src" })).toBe("/mnt/user-data/workspace/src/a.ts");
    expect(await t(glob, { pattern: "src/*.{ts,js}" })).toBe("/mnt/user-data/workspace/src/a.ts\n/mnt/user-data/workspace/src/b.js");
    expect(await t(glob, { pattern: "**/deep*", include_dirs: true })).toContain("/mnt/user-data/workspace/src/deep/");
    expect(await t(glob, { pattern: "**/deep*" })).toMatch(/No paths match/);
    const capped = await t(glob, { pattern: "**/*.ts", max_results: 2 });
    expect(capped.split("\n")).toHaveLength(3);
    expect(capped).toMatch(/max_results=2/);
    expect(await t(glob, { pattern: "node_modules/**/*.ts" })).toContain("node_modules/pkg/i.ts");
  });

  it("grep: regex, literal, case sensitivity, glob filter, max_results, binary and node_modules skipped", async () => {
    const ci = await t(grep, { pattern: "todo" });
    expect(ci).toContain("/mnt/user-data/workspace/src/a.ts:1: export const a = 1; // TODO fix");
    expect(ci).toContain("/mnt/user-data/workspace/src/b.js:2: TODO again");
    expect(ci).not.toContain("bin.dat");
    expect(ci).not.toContain("node_modules");
    const cs = await t(grep, { pattern: "todo", case_sensitive: true });
    expect(cs.split("\n").sort()).toEqual(["/mnt/user-data/workspace/src/b.js:1: todo: b", "/mnt/user-data/workspace/src/deep/c.ts:1: const c = 'todo';"]);
    expect(await t(grep, { pattern: "TODO", glob: "*.js" })).toBe("/mnt/user-data/workspace/src/b.js:1: todo: b\n/mnt/user-data/workspace/src/b.js:2: TODO again");
    expect(await t(grep, { pattern: "a = 1;", literal: true, path: "src/a.ts" })).toMatch(/a\.ts:1:/);
    expect(await t(grep, { pattern: "(", literal: true })).toMatch(/No matches/);
    await expect(call(grep, { pattern: "(" }, M)).rejects.toThrow(/Invalid regular expression.*literal=true/);
    const capped = await t(grep, { pattern: "todo", max_results: 2 });
    expect(capped.split("\n")).toHaveLength(3);
    expect(capped).toMatch(/max_results=2/);
  });
});

describe("present_files / view_image", () => {
  it("present_files returns a Command that adds artifacts", async () => {
    writeFileSync(join(M.outputs_path, "report.md"), "# r");
    writeFileSync(ws("draft.md"), "d");
    const out = await call(presentFiles, { filepaths: ["/mnt/user-data/outputs/report.md", "/mnt/user-data/outputs/report.md"] }, M);
    expect(out).toBeInstanceOf(Command);
    const update = (out as Command).update as { artifacts: string[]; messages: Array<{ content: string; tool_call_id: string }> };
    expect(update.artifacts).toEqual(["/mnt/user-data/outputs/report.md"]);
    expect(update.messages[0]!.content).toContain("Presented 1 file");
    expect(update.messages[0]!.tool_call_id).toMatch(/^call_/);
    await expect(call(presentFiles, { filepaths: ["draft.md"] }, M)).rejects.toThrow(/not under \/mnt\/user-data\/outputs/);
    await expect(call(presentFiles, { filepaths: ["/mnt/user-data/outputs/nope.md"] }, M)).rejects.toThrow(/does not exist/);
  });

  it("view_image writes metadata + sha256 (no bytes) to viewed_images", async () => {
    writeFileSync(join(M.uploads_path, "pic.png"), PNG);
    const out = await call(viewImage, { image_path: "/mnt/user-data/uploads/pic.png" }, M);
    expect(out).toBeInstanceOf(Command);
    const update = (out as Command).update as { viewed_images: Record<string, Record<string, unknown>>; messages: Array<{ content: string }> };
    const sha = createHash("sha256").update(PNG).digest("hex");
    expect(update.viewed_images).toEqual({
      "/mnt/user-data/uploads/pic.png": { mime_type: "image/png", size: PNG.length, actual_path: join(M.uploads_path, "pic.png"), sha256: sha },
    });
    expect(update.messages[0]!.content).toContain(`1x1, sha256 ${sha}`);
    expect(update.messages[0]!.content).not.toContain(root);
    writeFileSync(ws("fake.png"), "not an image");
    await expect(call(viewImage, { image_path: "fake.png" }, M)).rejects.toThrow(/does not contain PNG/);
    writeFileSync(ws("doc.txt"), "x");
    await expect(call(viewImage, { image_path: "doc.txt" }, M)).rejects.toThrow(/only \.png/);
  });
});

describe("mounts", () => {
  it("tools bound with fixed mounts ignore the state", async () => {
    const [, , , boundRead] = createFileTools({ mounts: M });
    writeFileSync(ws("x.txt"), "bound\n");
    const out = await (boundRead as unknown as { invoke: (a: unknown, c: unknown) => Promise<string> }).invoke({ path: "x.txt" }, {});
    expect(out).toBe("     1→bound");
  });
});
