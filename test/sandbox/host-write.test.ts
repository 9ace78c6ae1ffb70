// hostWriteFile: deerflow writing into a folder a sandboxed command can write (uploads/, outputs/…) never follows a
// link planted there: a linked file is replaced, a linked folder on the way is refused, nothing outside changes.
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HostWriteError, hostWriteFile } from "../../src/sandbox/host-write.js";

function layout() {
  const root = mkdtempSync(join(tmpdir(), "hostwrite-"));
  const outside = join(root, "home");
  mkdirSync(outside);
  writeFileSync(join(outside, ".bashrc"), "alias ll=ls\n");
  const thread = join(root, "data", "threads", "t1");
  mkdirSync(join(thread, "uploads"), { recursive: true });
  return { root, outside, data: join(root, "data"), thread };
}

describe("hostWriteFile", () => {
  it("replaces a planted link to a host file by the new file; the target keeps its content", async () => {
    const l = layout();
    symlinkSync(join(l.outside, ".bashrc"), join(l.thread, "uploads", "README.md"));
    await hostWriteFile({ base: l.data, dir: join(l.thread, "uploads"), name: "README.md" }, { data: "# readme\n" });
    expect(readFileSync(join(l.outside, ".bashrc"), "utf8")).toBe("alias ll=ls\n");
    expect(lstatSync(join(l.thread, "uploads", "README.md")).isFile()).toBe(true);
    expect(readFileSync(join(l.thread, "uploads", "README.md"), "utf8")).toBe("# readme\n");
    // No temporary file is left behind.
    expect(readdirSync(join(l.thread, "uploads"))).toEqual(["README.md"]);
  });

  it("copies a file's bytes (copyFrom) and creates absent folders below the base", async () => {
    const l = layout();
    const src = join(l.root, "big.bin");
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    writeFileSync(src, bytes);
    const dest = await hostWriteFile({ base: l.data, dir: join(l.thread, "outputs", ".subagent-results"), name: "x.md" }, { copyFrom: src });
    expect(readFileSync(dest).equals(bytes)).toBe(true);
  });

  it("refuses a linked folder anywhere from the base down, and writes nothing through it", async () => {
    const l = layout();
    mkdirSync(join(l.thread, "outputs"));
    symlinkSync(l.outside, join(l.thread, "outputs", ".subagent-results"));
    const sub = hostWriteFile({ base: l.thread, dir: join(l.thread, "outputs", ".subagent-results"), name: ".bashrc" }, { data: "evil" });
    await expect(sub).rejects.toThrow(HostWriteError);
    await expect(sub).rejects.toThrow(/\.subagent-results is a symbolic link/);
    // A link higher up (the thread's outputs/ itself) is refused the same way.
    const other = join(l.root, "data", "threads", "t2");
    mkdirSync(other, { recursive: true });
    symlinkSync(l.outside, join(other, "outputs"));
    await expect(hostWriteFile({ base: other, dir: join(other, "outputs", ".tool-results"), name: "a.txt" }, { data: "evil" })).rejects.toThrow(/outputs is a symbolic link/);
    expect(readdirSync(l.outside)).toEqual([".bashrc"]);
    expect(readFileSync(join(l.outside, ".bashrc"), "utf8")).toBe("alias ll=ls\n");
    expect(readlinkSync(join(other, "outputs"))).toBe(l.outside);
  });

  it("refuses a name that is not one component", async () => {
    const l = layout();
    await expect(hostWriteFile({ base: l.data, dir: join(l.thread, "uploads"), name: "../x" }, { data: "x" })).rejects.toThrow(/not a file name/);
  });

  it("copies only the file an attachment was checked as: a link swapped in after the checks is refused, nothing copied (the nineteenth pass's UP1)", async () => {
    const l = layout();
    const ws = join(l.root, "ws");
    mkdirSync(ws);
    writeFileSync(join(ws, "notes.md"), "notes\n");
    const checkedAs = realpathSync(join(ws, "notes.md"));
    // The background job's swap, between the checks (at-path-uploads.ts) and the copy (openThread).
    rmSync(join(ws, "notes.md"));
    symlinkSync(join(l.outside, ".bashrc"), join(ws, "notes.md"));
    await expect(hostWriteFile({ base: l.data, dir: join(l.thread, "uploads"), name: "notes.md" }, { copyFrom: join(ws, "notes.md"), checkedAs })).rejects.toThrow(/changed after deerflow checked it/);
    expect(readdirSync(join(l.thread, "uploads"))).toEqual([]);
    // The file itself, as checked, is copied.
    rmSync(join(ws, "notes.md"));
    writeFileSync(join(ws, "notes.md"), "notes\n");
    await hostWriteFile({ base: l.data, dir: join(l.thread, "uploads"), name: "notes.md" }, { copyFrom: join(ws, "notes.md"), checkedAs });
    expect(readFileSync(join(l.thread, "uploads", "notes.md"), "utf8")).toBe("notes\n");
  });
});
