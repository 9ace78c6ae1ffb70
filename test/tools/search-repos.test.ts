// The search tools on a generated repository (test/support/repo-fixture.ts) with both engines: ripgrep on PATH,
// and a PATH without it (the JavaScript walker). Same answers, in path order; ignored files left out unless asked;
// symlinks never followed; pnpm's hard-linked node_modules readable when the shell is confined, and a write
// replaces the file instead of writing through the link.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ThreadPaths } from "../../src/sandbox/provider.js";
import { createFileTools, resetReadRecords } from "../../src/tools/file-tools.js";
import { pathWithout } from "../support/confinement.js";
import { GREP_HITS, IGNORED, NEEDLE, STORE_TEXT, VISIBLE, makeRepo } from "../support/repo-fixture.js";
import { call, makeRoot, textOf } from "./helpers.js";

const HAS_RG = ["/usr/bin/rg", "/usr/local/bin/rg", "/bin/rg"].some((p) => existsSync(p));
const [ls, glob, grep, readFile, writeFile, strReplace] = createFileTools();
const [, , grepUnconfined, readUnconfined, writeUnconfined] = createFileTools({ hardLinks: "refused" });

let root: string;
let M: ThreadPaths;
let storeFile: string;
let noRgPath: string;
const realPath = process.env.PATH;
const W = "/mnt/user-data/workspace";

/** Depth-first, names in byte order: the documented order of grep and glob. */
function pathOrder(a: string, b: string): number {
  const x = a.split("/");
  const y = b.split("/");
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const c = Buffer.compare(Buffer.from(x[i]!), Buffer.from(y[i]!));
    if (c) return c;
  }
  return x.length - y.length;
}

beforeAll(() => {
  root = makeRoot("deerflow-search-");
  const base = join(root, "threads", "S");
  M = { workspace_path: join(base, "workspace"), uploads_path: join(base, "uploads"), outputs_path: join(base, "outputs") };
  for (const p of [M.uploads_path, M.outputs_path]) mkdirSync(p, { recursive: true });
  ({ storeFile } = makeRepo(M.workspace_path, join(root, "outside")));
  noRgPath = pathWithout(join(root, "bin-without-rg"), ["rg"]);
});
afterAll(() => {
  process.env.PATH = realPath;
  rmSync(root, { recursive: true, force: true });
});

const engines = HAS_RG ? (["ripgrep", "walker"] as const) : (["walker"] as const);

/** Run `fn` with the engine's PATH (ripgrep found or not), restoring PATH after. */
async function using<T>(engine: "ripgrep" | "walker", fn: () => Promise<T>): Promise<T> {
  process.env.PATH = engine === "ripgrep" ? realPath : noRgPath;
  try {
    return await fn();
  } finally {
    process.env.PATH = realPath;
  }
}

const t = async (tool: unknown, args: Record<string, unknown>) => textOf(await call(tool, args, M, "S"));

describe.each(engines)("search with %s", (engine) => {
  it("glob lists what the repository does not ignore, in path order, and everything with include_ignored", async () => {
    await using(engine, async () => {
      expect((await t(glob, { pattern: "**/*" })).split("\n")).toEqual(
        VISIBLE.map((p) => `${W}/${p}`)
          .join("\n")
          .split("\n"),
      );
      const all = [...VISIBLE, ...IGNORED].sort(pathOrder).map((p) => `${W}/${p}`);
      expect(await t(glob, { pattern: "**/*", include_ignored: true, max_results: 1000 })).toBe(all.join("\n"));
      // Rules of the folders above the one searched still apply (root *.log; src's own generated/ and !important.log).
      expect(await t(glob, { pattern: "**/*.{log,ts}", path: "src" })).toBe([`${W}/src/important.log`, `${W}/src/index.ts`, `${W}/src/util/strings.ts`].join("\n"));
      // An anchored rule (/dist in packages/app) ignores packages/app/dist only.
      expect(await t(glob, { pattern: "**/*.ts", path: "packages/app" })).toBe([`${W}/packages/app/src/dist/keep.ts`, `${W}/packages/app/src/main.ts`].join("\n"));
      // node_modules when the pattern names it; the symlink node_modules/zod is not followed.
      expect(await t(glob, { pattern: "node_modules/**/*.js" })).toBe(`${W}/node_modules/.pnpm/zod@3.23.8/node_modules/zod/index.js`);
      expect(await t(glob, { pattern: "src/**/*.ts", max_results: 1 })).toBe(`${W}/src/index.ts\n[Stopped at max_results=1; narrow the pattern or raise max_results.]`);
      // An ignored folder named by the pattern's leading folders is asked for; a wildcard does not reach it.
      expect(await t(glob, { pattern: "build/**" })).toBe(`${W}/build/bundle.js`);
      expect(await t(glob, { pattern: "**/*.js" })).toMatch(/No paths match.*include_ignored=true/);
    });
  });

  it("grep finds the needle in path order, never in ignored, binary or outside files", async () => {
    await using(engine, async () => {
      const out = await t(grep, { pattern: NEEDLE, case_sensitive: true });
      expect(out.split(/\n(?=\/mnt)/).map((l) => l.slice(0, l.indexOf(": ")))).toEqual(GREP_HITS.map(([p, n]) => `${W}/${p}:${n}`));
      expect(out).not.toMatch(/OUTSIDE-SECRET|generated|debug\.log|bundle|blob\.bin|local-notes|secret-fixtures/);
      const all = await t(grep, { pattern: "needle_7F3A", include_ignored: true, max_results: 1000 });
      for (const p of IGNORED) expect(all).toContain(`${W}/${p}:`);
      expect(all).not.toMatch(/OUTSIDE-SECRET|\.git\/objects/);
      expect(await t(grep, { pattern: NEEDLE, glob: "*.log" })).toBe(`${W}/src/important.log:1: const x = "${NEEDLE}";`);
      expect(await t(grep, { pattern: NEEDLE, glob: "src/**/*.ts" })).toBe(`${W}/src/index.ts:2: const x = "${NEEDLE}";\n${W}/src/util/strings.ts:1: const x = "${NEEDLE}";`);
      // A file named directly is searched even when it is ignored; a look-around pattern works with both engines.
      expect(await t(grep, { pattern: NEEDLE, path: "build/bundle.js" })).toBe(`${W}/build/bundle.js:1: const x = "${NEEDLE}";`);
      expect(await t(grep, { pattern: `(?<=")${NEEDLE}`, path: "src" })).toContain(`${W}/src/important.log:1:`);
      await expect(t(grep, { pattern: NEEDLE, path: "out-link" })).rejects.toThrow(/outside/);
    });
  });

  it("a folder inside node_modules (pnpm: a symlink to hard-linked files) is searched and read when confined", async () => {
    await using(engine, async () => {
      const hit = `${W}/node_modules/.pnpm/zod@3.23.8/node_modules/zod/index.js:1: ${STORE_TEXT.trim()}`;
      expect(await t(grep, { pattern: "parse", path: "node_modules/zod" })).toBe(hit);
      expect(await t(readFile, { path: "node_modules/zod/index.js" })).toBe(`     1→${STORE_TEXT.trim()}`);
      // Unconfined: refused with the reason and what to install; grep skips the file.
      await expect(call(readUnconfined, { path: "node_modules/zod/index.js" }, M, "S")).rejects.toThrow(/2 hard links.*unconfined.*bubblewrap/s);
      expect(textOf(await call(grepUnconfined, { pattern: "parse", path: "node_modules/zod" }, M, "S"))).toMatch(/No matches/);
    });
  });

  it("ls leaves ignored entries out and counts them", async () => {
    await using(engine, async () => {
      const out = await t(ls, { path: "." });
      expect(out).toContain(`${W}/src/index.ts`);
      expect(out).toContain(`${W}/out-link (symlink)`);
      expect(out).not.toMatch(/build|local-notes|secret-fixtures|generated|debug\.log|node_modules/);
      expect(out).toMatch(/\[\d+ entries ignored by \.gitignore\/\.ignore not shown; include_ignored=true shows them\.\]$/);
      const all = await t(ls, { path: ".", include_ignored: true });
      expect(all).toContain(`${W}/build/bundle.js`);
      expect(all).toContain(`${W}/node_modules/zod (symlink)`);
    });
  });
});

describe.each(engines)("a folder swapped for a symlink to a secret while %s searches", (engine) => {
  it("never shows a byte or a name from outside", async () => {
    const { spawn } = await import("node:child_process");
    const race = join(M.workspace_path, "race");
    mkdirSync(join(race, "sub"), { recursive: true });
    writeFileSync(join(race, "sub", "leak.ts"), `${NEEDLE} inside\n`);
    // A real process swapping race/sub for a symlink to the outside folder (which holds leak.ts too) and back.
    const swapper = spawn("bash", ["-c", `cd '${race}'; while true; do mv sub sub.d; ln -s '${join(root, "outside", "secret")}' sub; rm sub; mv sub.d sub; done`], { stdio: "ignore", detached: true });
    try {
      await using(engine, async () => {
        for (let i = 0; i < 25; i++) {
          const g = await t(grep, { pattern: NEEDLE, path: "race" }).catch((e: Error) => e.message);
          const l = await t(glob, { pattern: "**/*.ts", path: "race" }).catch((e: Error) => e.message);
          expect(g).not.toContain("OUTSIDE-SECRET");
          expect(`${g}\n${l}`).not.toContain(join(root, "outside"));
        }
      });
    } finally {
      // The whole group: a killed bash leaves its running mv/ln behind, which raced the removal (ENOTEMPTY).
      const exited = new Promise((r) => swapper.once("exit", r));
      process.kill(-swapper.pid!, "SIGKILL");
      await exited;
      rmSync(race, { recursive: true, force: true, maxRetries: 5 });
    }
  }, 120_000);
});

describe("a ripgrep that misbehaves", () => {
  /** A PATH whose `rg` is this shell script (the rest of the PATH has no rg). */
  function fakeRg(name: string, script: string): string {
    const dir = join(root, `fake-${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "rg"), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
    return `${dir}:${noRgPath}`;
  }

  it("one that fails without an answer is replaced by the walker; one that dies midway is reported", async () => {
    process.env.PATH = fakeRg("broken", 'echo "rg: error while loading shared libraries" >&2; exit 2');
    try {
      expect(await t(glob, { pattern: "**/*" })).toBe(VISIBLE.map((p) => `${W}/${p}`).join("\n"));
      const out = await t(grep, { pattern: NEEDLE, case_sensitive: true });
      expect(out.split(/\n(?=\/mnt)/).map((l) => l.slice(0, l.indexOf(": ")))).toEqual(GREP_HITS.map(([p, n]) => `${W}/${p}:${n}`));
    } finally {
      process.env.PATH = realPath;
    }
    process.env.PATH = fakeRg("dies", "printf 'README.md\\0'; echo 'killed by the OOM killer' >&2; exit 2");
    try {
      expect(await t(glob, { pattern: "**/*" })).toBe(`${W}/README.md\n[ripgrep failed (killed by the OOM killer); the results above may be incomplete.]`);
    } finally {
      process.env.PATH = realPath;
    }
  });

  it("one that prints paths outside the searched folder, or through a symlink, shows none of them", async () => {
    process.env.PATH = fakeRg("liar", "printf '../../../../outside/secret/leak.ts\\0out-link/leak.ts\\0/etc/passwd\\0src/index.ts\\0'");
    try {
      expect(await t(glob, { pattern: "**/*" })).toBe(`${W}/src/index.ts`);
    } finally {
      process.env.PATH = realPath;
    }
  });
});

describe("writes never go through a hard link", () => {
  it("write_file and str_replace replace the file; pnpm's store copy keeps its content", async () => {
    resetReadRecords();
    const file = join(M.workspace_path, "node_modules", ".pnpm", "zod@3.23.8", "node_modules", "zod", "index.js");
    expect(statSync(file).nlink).toBe(2);
    await t(readFile, { path: "node_modules/zod/index.js" });
    await t(strReplace, { path: "node_modules/zod/index.js", old_str: "from zod", new_str: "patched" });
    expect(readFileSync(file, "utf8")).toContain("patched");
    expect(statSync(file).nlink).toBe(1);
    expect(readFileSync(storeFile, "utf8")).toBe(STORE_TEXT);
    expect(statSync(storeFile).nlink).toBe(1);
  });

  it("a replaced file keeps its mode and leaves no temporary file behind", async () => {
    const script = join(M.workspace_path, "run.sh");
    writeFileSync(script, "echo old\n", { mode: 0o750 });
    await t(readFile, { path: "run.sh" });
    await t(writeFile, { path: "run.sh", content: "echo new\n" });
    expect(readFileSync(script, "utf8")).toBe("echo new\n");
    expect(statSync(script).mode & 0o777).toBe(0o750);
    const { readdirSync } = await import("node:fs");
    expect(readdirSync(M.workspace_path).filter((n) => n.includes(".deerflow-"))).toEqual([]);
    rmSync(script);
  });

  it("an append to a hard-linked file copies it first; unconfined, writes to it are refused", async () => {
    const a = join(M.workspace_path, "a.txt");
    const b = join(root, "outside", "b.txt");
    const { linkSync } = await import("node:fs");
    writeFileSync(b, "shared\n");
    linkSync(b, a);
    await t(writeFile, { path: "a.txt", content: "more\n", append: true });
    expect(readFileSync(a, "utf8")).toBe("shared\nmore\n");
    expect(readFileSync(b, "utf8")).toBe("shared\n");
    rmSync(a);
    linkSync(b, a);
    await expect(call(writeUnconfined, { path: "a.txt", content: "x", append: true }, M, "S")).rejects.toThrow(/hard links.*bubblewrap/s);
    expect(readFileSync(b, "utf8")).toBe("shared\n");
    rmSync(a);
  });
});
