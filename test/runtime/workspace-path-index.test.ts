// The `@` completion index on real folders: what the repository ignores is left out (the same rules as glob and
// grep), directories are offered, typing narrows, a refresh sees new files, and a folder a workspace may not be is
// never listed.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WorkspacePathIndex } from "../../src/runtime/workspace-path-index.js";

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "deerflow-pathindex-")));
  made.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

describe("WorkspacePathIndex", () => {
  it("lists what .gitignore keeps (never .git, node_modules or .deerflowrc), with directories; fuzzy search ranks by name", async () => {
    const root = tree({
      ".gitignore": "dist/\n*.log\n",
      ".git/HEAD": "ref: refs/heads/main\n",
      "src/app.ts": "",
      "src/components/AppHeader.tsx": "",
      "dist/app.js": "",
      "debug.log": "",
      "node_modules/zod/index.js": "",
      ".deerflowrc": "{}",
      "README.md": "",
    });
    const index = new WorkspacePathIndex(root);
    expect(index.search("app", 10)).toEqual([]);
    await index.refresh();
    expect(index.state).toMatchObject({ status: "ready", files: 4 });
    expect(index.search("", 20)).toEqual([".gitignore", "README.md", "src/", "src/app.ts", "src/components/", "src/components/AppHeader.tsx"]);
    expect(index.search("app", 10)).toEqual(["src/app.ts", "src/components/AppHeader.tsx"]);
    expect(index.search("apphdr", 10)).toEqual(["src/components/AppHeader.tsx"]);
    expect(index.search("comp", 10)[0]).toBe("src/components/");
    expect(index.search("", 50).filter((p) => p.startsWith(".git/"))).toEqual([]);
    for (const hidden of ["dist", "debug", "zod", "deerflowrc"]) expect(index.search(hidden, 10)).toEqual([]);
  });

  it("typing narrows from the last hits, and deleting a letter searches everything again", async () => {
    const root = tree({ "a/one.ts": "", "b/two.ts": "", "b/twelve.ts": "" });
    const index = new WorkspacePathIndex(root);
    await index.refresh();
    expect(index.search("tw", 10)).toEqual(["b/two.ts", "b/twelve.ts"]);
    expect(index.search("twe", 10)).toEqual(["b/twelve.ts"]);
    expect(index.search("tw", 10)).toEqual(["b/two.ts", "b/twelve.ts"]);
    expect(index.search("on", 10)).toEqual(["a/one.ts"]);
  });

  it("a refresh sees files added since, and tells its listeners", async () => {
    const root = tree({ "first.ts": "" });
    const index = new WorkspacePathIndex(root);
    let told = 0;
    index.onChange(() => told++);
    await index.refresh();
    expect(told).toBe(1);
    writeFileSync(join(root, "second.ts"), "");
    expect(index.search("second", 5)).toEqual([]);
    await index.refresh();
    expect(index.search("second", 5)).toEqual(["second.ts"]);
    expect(told).toBe(2);
  });

  it("a refused folder is never listed and says why", async () => {
    const root = tree({ "secret.txt": "" });
    const index = new WorkspacePathIndex(root, "it is your home directory");
    await index.refresh();
    expect(index.state).toMatchObject({ status: "refused", reason: "it is your home directory" });
    expect(index.search("", 5)).toEqual([]);
  });
});
