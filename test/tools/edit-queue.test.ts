// Several edits of one file in one model turn run concurrently in the tool node; each must land (the eval's fix-lint
// task lost one of two str_replace calls on src/sum.js before edits were queued per workspace).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createFileTools, resetReadRecords } from "../../src/tools/file-tools.js";
import { call, makeRoot, makeThread } from "./helpers.js";

const [, , , readFile, writeFile, strReplace] = createFileTools();
const root = makeRoot();
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("concurrent edits of one workspace", () => {
  it("every str_replace of one file in one turn lands, and a write_file beside them too", async () => {
    resetReadRecords();
    const M = makeThread(root, "edits");
    const file = join(M.workspace_path, "sum.js");
    const lines = Array.from({ length: 8 }, (_, i) => `var v${i} = ${i};`);
    writeFileSync(file, `${lines.join("\n")}\n`);
    await call(readFile, { path: "sum.js" }, M);
    await Promise.all([...lines.map((_, i) => call(strReplace, { path: "sum.js", old_str: `var v${i} `, new_str: `let v${i} ` }, M)), call(writeFile, { path: "other.js", content: "x\n" }, M)]);
    expect(readFileSync(file, "utf8")).toBe(`${lines.map((l) => l.replace("var", "let")).join("\n")}\n`);
    expect(readFileSync(join(M.workspace_path, "other.js"), "utf8")).toBe("x\n");
  });

  it("a failing edit does not block the ones queued after it", async () => {
    resetReadRecords();
    const M = makeThread(root, "failing");
    writeFileSync(join(M.workspace_path, "a.txt"), "one\n");
    await call(readFile, { path: "a.txt" }, M);
    const results = await Promise.allSettled([call(strReplace, { path: "a.txt", old_str: "missing", new_str: "x" }, M), call(strReplace, { path: "a.txt", old_str: "one", new_str: "two" }, M)]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled"]);
    expect(readFileSync(join(M.workspace_path, "a.txt"), "utf8")).toBe("two\n");
  });
});
