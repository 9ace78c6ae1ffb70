// Crafted escape attempts against the real file tools (called as the agent's ToolNode calls them). Every attempt
// must be refused or stay inside thread A's mounts; afterwards nothing outside may have been read or written:
// canary files keep content, mtime and (where the filesystem tracks it) atime; their text never shows up in any
// tool output.
import { execFileSync } from "node:child_process";
import { existsSync, linkSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, symlinkSync, utimesSync, writeFileSync, rmSync, lstatSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveSandboxPath, SandboxPathError } from "../../src/sandbox/paths.js";
import { safeFsTestHooks } from "../../src/sandbox/safe-fs.js";
import type { ThreadPaths } from "../../src/sandbox/provider.js";
import { createFileTools } from "../../src/tools/file-tools.js";
import { call, makeRoot, makeThread, textOf } from "../tools/helpers.js";

// The hard link to an outside file below stands for one a command made while the shell ran unconfined (no
// bubblewrap), the policy these tools get here; in the confined shell no command can make one (a link across the
// sandbox's mounts fails), and hard-linked files are readable there (test/tools/search-repos.test.ts).
const [ls, glob, grep, readFile, writeFile, strReplace, presentFiles, viewImage] = createFileTools({ hardLinks: "refused" });
const OLD = new Date("2001-02-03T04:05:06Z");
const CANARY_TEXT = "CANARY-OUTSIDE-5b1e9";
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f6d0cd0000000049454e44ae426082", "hex");

let root: string;
let A: ThreadPaths;
let B: ThreadPaths;
let outside: string;
let canaries: Map<string, { content: Buffer; mtimeMs: number; atimeMs: number }>;
let atimeTracked = false;
let server: Server | undefined;
const outputs: string[] = [];
/** Outputs of calls that succeeded: they must not mention host paths at all. */
const successOutputs: string[] = [];
let count = 0;

function ws(...p: string[]) {
  return join(A.workspace_path, ...p);
}

function canary(path: string, content: string | Buffer) {
  writeFileSync(path, content);
  utimesSync(path, OLD, OLD);
}

/** Every file under a directory (recursively, not following symlinks). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = lstatSync(p);
    if (st.isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out.sort();
}

/** Expect the attempt to be refused (it throws an Error). */
async function refused(label: string, fn: () => Promise<unknown>, match?: RegExp) {
  let out: unknown;
  try {
    out = await fn();
  } catch (err) {
    expect(err, label).toBeInstanceOf(Error);
    const msg = (err as Error).message;
    outputs.push(msg);
    if (match) expect(msg, label).toMatch(match);
    count++;
    return msg;
  }
  throw new Error(`${label}: NOT refused; output: ${textOf(out).slice(0, 300)}`);
}

/** Expect the attempt to either be refused or succeed with an effect confined to the mounts (checked by `check`). */
async function contained(_label: string, fn: () => Promise<unknown>, check?: (text: string) => void) {
  try {
    const text = textOf(await fn());
    outputs.push(text);
    successOutputs.push(text);
    check?.(text);
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    outputs.push(err.message);
  }
  count++;
}

beforeAll(async () => {
  root = makeRoot("deerflow-escape-");
  A = makeThread(root, "A");
  B = makeThread(root, "B");
  outside = join(root, "outside");
  mkdirSync(join(outside, "sub"), { recursive: true });
  mkdirSync(join(outside, "racedir"), { recursive: true });
  canary(join(outside, "canary.txt"), `${CANARY_TEXT}\nsecret line\n`);
  canary(join(outside, "sub", "inner.txt"), `${CANARY_TEXT} inner\n`);
  canary(join(outside, "img.png"), PNG);
  canary(join(B.workspace_path, "secret.txt"), `${CANARY_TEXT} thread B\n`);
  // Does this filesystem update atime on read? (relatime does for an atime older than a day.)
  const probe = join(root, "probe");
  canary(probe, "x");
  readFileSync(probe);
  atimeTracked = statSync(probe).atimeMs !== OLD.getTime();
  canaries = new Map();
  for (const p of [...filesUnder(outside), ...filesUnder(join(root, "threads", "B"))]) {
    const st = statSync(p);
    canaries.set(p, { content: Buffer.from(p.endsWith(".png") ? PNG : ""), mtimeMs: st.mtimeMs, atimeMs: st.atimeMs });
  }

  // What bash could have created inside the workspace.
  writeFileSync(ws("a.txt"), "inside a\n");
  symlinkSync(join(outside, "canary.txt"), ws("lnk-file"));
  symlinkSync(outside, ws("lnk-dir"));
  symlinkSync(outside, ws("deep"));
  symlinkSync("/etc/passwd", ws("lnk-etc"));
  symlinkSync("/dev/null", ws("lnk-devnull"));
  symlinkSync("/proc/self/environ", ws("lnk-environ"));
  symlinkSync(join(outside, "does-not-exist.txt"), ws("lnk-dangling"));
  symlinkSync("../../B/workspace/secret.txt", ws("lnk-relative"));
  linkSync(join(outside, "canary.txt"), ws("hl.txt"));
  execFileSync("mkfifo", [ws("fifo")]);
  server = createServer();
  await new Promise<void>((res) => server!.listen(ws("sock"), res));
  symlinkSync(join(outside, "canary.txt"), join(A.outputs_path, "lnk-out.txt"));
  symlinkSync(join(outside, "img.png"), join(A.uploads_path, "lnk-img.png"));
});

afterAll(async () => {
  safeFsTestHooks.beforeOpen = undefined;
  await new Promise<void>((res) => (server ? server.close(() => res()) : res()));
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("escape attempts", () => {
  it("path-level traversal, absolute paths and encodings are refused or stay literal", async () => {
    const rf = (path: string) => () => call(readFile, { path }, A);
    await refused("rel ../ to sibling thread", rf("../../B/workspace/secret.txt"), /outside/);
    await refused("rel ../ to outside", rf("../../../outside/canary.txt"));
    await refused("workspace/../../", rf("workspace/../../B/workspace/secret.txt"));
    await refused("deep ../ chain", rf("a/b/c/../../../../../../../../../../etc/passwd"));
    await refused("virtual traversal", rf("/mnt/user-data/workspace/../../../etc/passwd"), /not inside a thread directory/);
    await refused("virtual traversal via uploads", rf("/mnt/user-data/workspace/../uploads/../../x"));
    await refused("virtual root itself", rf("/mnt/user-data"));
    await refused("/mnt/user-data/../..", rf("/mnt/user-data/../../etc/passwd"));
    await refused("absolute /etc/passwd", rf("/etc/passwd"), /Allowed:/);
    await refused("absolute home", rf(join(homedir(), ".bashrc")));
    await refused("sibling thread absolute", rf(join(B.workspace_path, "secret.txt")));
    await refused("outside canary absolute", rf(join(outside, "canary.txt")));
    await refused("NUL byte", rf("a.txt\0/../../../etc/passwd"), /NUL/);
    await refused("NUL byte write", () => call(writeFile, { path: "x\0y", content: "z" }, A), /NUL/);
    // A24-11: a name made with a newline or an escape would mislead every listing that shows it.
    await refused("newline in a new name", () => call(writeFile, { path: "a\nb.txt", content: "z" }, A), /control character/);
    await refused("escape in a new folder", () => call(writeFile, { path: "d\u001b[2J/x.txt", content: "z" }, A), /control character/);
    await refused("/proc/self/environ", rf("/proc/self/environ"), /proc/);
    await refused("/dev/null", rf("/dev/null"));
    await refused("/dev/zero", rf("/dev/zero"));
    // Literal names: nothing is decoded, so these are (missing) files inside the workspace.
    await refused("....// (literal dirs)", rf("....//....//etc/passwd"), /does not exist/);
    await refused("percent-encoded ..", rf("%2e%2e/%2e%2e/outside/canary.txt"), /does not exist/);
    await refused("percent-encoded slash", rf("..%2f..%2f..%2foutside%2fcanary.txt"), /does not exist/);
    await refused("two-dot leader look-alike", rf("\u2025/\u2025/\u2025/outside/canary.txt"), /does not exist/);
    await refused("fullwidth dots", rf("\uff0e\uff0e/\uff0e\uff0e/etc/passwd"), /does not exist/);
    await refused("division slash", rf("..\u2215..\u2215etc\u2215passwd"), /does not exist/);
    await refused("tilde home", rf("~/.bashrc"), /does not exist/);
    await contained(
      "percent-encoded write lands inside",
      () => call(writeFile, { path: "%2e%2e/%2e%2e/pwned.txt", content: "p" }, A),
      () => {
        expect(existsSync(ws("%2e%2e", "%2e%2e", "pwned.txt"))).toBe(true);
      },
    );
    await contained(
      "look-alike write lands inside",
      () => call(writeFile, { path: "\u2025/pwned.txt", content: "p" }, A),
      () => {
        expect(existsSync(ws("\u2025", "pwned.txt"))).toBe(true);
      },
    );
    await refused("write absolute /tmp", () => call(writeFile, { path: "/tmp/deerflow-evil.txt", content: "x" }, A));
    expect(existsSync("/tmp/deerflow-evil.txt")).toBe(false);
    await refused("write to sibling thread", () => call(writeFile, { path: join(B.workspace_path, "new.txt"), content: "x" }, A));
    await refused("write ../ outside", () => call(writeFile, { path: "../../../outside/new.txt", content: "x" }, A));
    await refused("write /dev/null", () => call(writeFile, { path: "/dev/null", content: "x" }, A));
    await refused("write /proc", () => call(writeFile, { path: "/proc/self/fd/1", content: "x" }, A));
    await refused("str_replace sibling", () => call(strReplace, { path: "../../B/workspace/secret.txt", old_str: "C", new_str: "X" }, A));
  });

  it("symlinks, hard links and special files inside the mounts are refused", async () => {
    const rf = (path: string) => () => call(readFile, { path }, A);
    await refused("symlink file → outside", rf("lnk-file"), /symlink/);
    await refused("symlink dir → outside", rf("lnk-dir/canary.txt"));
    await refused("symlinked dir mid-path", rf("deep/sub/inner.txt"));
    await refused("symlink → /etc/passwd", rf("lnk-etc"));
    await refused("symlink → /dev/null", rf("lnk-devnull"));
    await refused("symlink → /proc/self/environ", rf("lnk-environ"));
    await refused("relative symlink → sibling thread", rf("lnk-relative"));
    await refused("dangling symlink read", rf("lnk-dangling"));
    await refused("hard link read", rf("hl.txt"), /hard link/);
    await refused("FIFO read", rf("fifo"), /FIFO/);
    await refused("socket read", rf("sock"), /socket/);
    await refused("write through symlink", () => call(writeFile, { path: "lnk-file", content: "pwned" }, A));
    await refused("append through symlink", () => call(writeFile, { path: "lnk-file", content: "pwned", append: true }, A));
    await refused("write into symlinked dir", () => call(writeFile, { path: "lnk-dir/new.txt", content: "pwned" }, A));
    await refused("write mid-path symlink", () => call(writeFile, { path: "deep/sub/new.txt", content: "pwned" }, A));
    await refused("write dangling symlink", () => call(writeFile, { path: "lnk-dangling", content: "pwned" }, A));
    await refused("write hard link", () => call(writeFile, { path: "hl.txt", content: "pwned" }, A), /hard link/);
    await refused("append hard link", () => call(writeFile, { path: "hl.txt", content: "pwned", append: true }, A), /hard link/);
    await refused("write FIFO", () => call(writeFile, { path: "fifo", content: "x", append: true }, A));
    await refused("str_replace through symlink", () => call(strReplace, { path: "lnk-file", old_str: "secret", new_str: "x" }, A));
    await refused("str_replace hard link", () => call(strReplace, { path: "hl.txt", old_str: "secret", new_str: "x" }, A), /hard link/);
    await refused("str_replace mid-path symlink", () => call(strReplace, { path: "deep/sub/inner.txt", old_str: "C", new_str: "x" }, A));
    await refused("ls symlinked dir", () => call(ls, { path: "lnk-dir" }, A));
    await refused("ls mid-path symlink", () => call(ls, { path: "deep/sub" }, A));
    await refused("ls /", () => call(ls, { path: "/" }, A));
    await refused("ls ..", () => call(ls, { path: ".." }, A));
    await refused("ls /proc", () => call(ls, { path: "/proc" }, A));
    await contained(
      "ls workspace does not follow symlinks",
      () => call(ls, { path: "." }, A),
      (t) => {
        expect(t).toContain("/mnt/user-data/workspace/lnk-dir (symlink)");
        expect(t).not.toMatch(/canary\.txt|inner\.txt|racedir/);
      },
    );
    await refused("glob in symlinked dir", () => call(glob, { pattern: "**/*", path: "lnk-dir" }, A));
    await refused("glob pattern ..", () => call(glob, { pattern: "../**/*" }, A), /\.\./);
    await refused("glob pattern mid ..", () => call(glob, { pattern: "**/../../outside/*" }, A));
    await refused("glob absolute pattern", () => call(glob, { pattern: "/etc/*" }, A), /relative/);
    await refused("glob path /", () => call(glob, { pattern: "**/*", path: "/" }, A));
    await contained(
      "glob ** does not descend symlinks",
      () => call(glob, { pattern: "**/*" }, A),
      (t) => {
        expect(t).not.toMatch(/canary\.txt|inner\.txt|secret\.txt/);
      },
    );
    await refused("grep path /", () => call(grep, { pattern: "root", path: "/" }, A));
    await refused("grep path /etc", () => call(grep, { pattern: "root", path: "/etc" }, A));
    await refused("grep symlinked dir", () => call(grep, { pattern: "CANARY", path: "lnk-dir" }, A));
    await refused("grep symlinked file", () => call(grep, { pattern: "CANARY", path: "lnk-file" }, A));
    await refused("grep glob with ..", () => call(grep, { pattern: "CANARY", glob: "../*" }, A));
    await contained(
      "grep workspace skips symlinks and hard links",
      () => call(grep, { pattern: "CANARY|secret" }, A),
      (t) => {
        expect(t).toMatch(/No matches/);
      },
    );
    await contained(
      "grep over all mounts via uploads path",
      () => call(grep, { pattern: "CANARY", path: "/mnt/user-data/uploads" }, A),
      (t) => {
        expect(t).toMatch(/No matches/);
      },
    );
    await refused("present_files traversal", () => call(presentFiles, { filepaths: ["../../../outside/canary.txt"] }, A));
    await refused("present_files virtual traversal", () => call(presentFiles, { filepaths: ["/mnt/user-data/outputs/../../../etc/passwd"] }, A));
    await refused("present_files symlink in outputs", () => call(presentFiles, { filepaths: ["/mnt/user-data/outputs/lnk-out.txt"] }, A));
    await refused("present_files not in outputs", () => call(presentFiles, { filepaths: ["/mnt/user-data/outputs/../workspace/a.txt"] }, A), /outputs/);
    await refused("view_image traversal", () => call(viewImage, { image_path: "../../../outside/img.png" }, A));
    await refused("view_image upload traversal", () => call(viewImage, { image_path: "/mnt/user-data/uploads/../../../../outside/img.png" }, A));
    await refused("view_image symlink in uploads", () => call(viewImage, { image_path: "/mnt/user-data/uploads/lnk-img.png" }, A));
    await refused("view_image /dev/zero", () => call(viewImage, { image_path: "/dev/zero" }, A));
  });

  it("a directory swapped for a symlink between check and open lets no byte out", async () => {
    const swap = (dir: string) => async () => {
      renameSync(ws(dir), ws(`${dir}.orig`));
      symlinkSync(outside, ws(dir));
    };
    // New file: the open would create outside/swapped-new.txt; it is detected and unlinked.
    mkdirSync(ws("swap1"));
    safeFsTestHooks.beforeOpen = swap("swap1");
    await refused("swap on create", () => call(writeFile, { path: "swap1/swapped-new.txt", content: "pwned" }, A), /outside/);
    expect(existsSync(join(outside, "swapped-new.txt"))).toBe(false);
    // Existing file name outside: opened without O_TRUNC, refused before any byte is written.
    mkdirSync(ws("swap2"));
    safeFsTestHooks.beforeOpen = swap("swap2");
    await refused("swap onto existing outside file", () => call(writeFile, { path: "swap2/canary.txt", content: "pwned" }, A), /outside/);
    // Read: the checked file is inside; the opened one would be the canary.
    mkdirSync(ws("swap3"));
    writeFileSync(ws("swap3", "canary.txt"), "inside\n");
    safeFsTestHooks.beforeOpen = swap("swap3");
    await refused("swap on read", () => call(readFile, { path: "swap3/canary.txt" }, A), /outside/);
    // str_replace: read inside first, then swap before its read.
    mkdirSync(ws("swap4"));
    writeFileSync(ws("swap4", "canary.txt"), "secret inside\n");
    safeFsTestHooks.beforeOpen = undefined;
    await call(readFile, { path: "swap4/canary.txt" }, A);
    safeFsTestHooks.beforeOpen = swap("swap4");
    await refused("swap on str_replace", () => call(strReplace, { path: "swap4/canary.txt", old_str: "secret", new_str: "x" }, A));
    safeFsTestHooks.beforeOpen = undefined;
  });

  it("a concurrent swapper racing many writes never gets a byte outside", async () => {
    mkdirSync(ws("race"));
    let stop = false;
    const swapper = (async () => {
      const { rename, symlink, unlink } = await import("node:fs/promises");
      while (!stop) {
        await rename(ws("race"), ws("race.real")).catch(() => undefined);
        await symlink(join(outside, "racedir"), ws("race")).catch(() => undefined);
        await new Promise((r) => setImmediate(r));
        await unlink(ws("race")).catch(() => undefined);
        await rename(ws("race.real"), ws("race")).catch(() => undefined);
        await new Promise((r) => setImmediate(r));
      }
    })();
    // Six lanes of sequential writes interleave with the swapper at every await.
    const results: PromiseSettledResult<unknown>[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async (_, lane) => {
        for (let j = 0; j < 25; j++) {
          const i = lane * 25 + j;
          const [r] = await Promise.allSettled([call(writeFile, { path: `race/f${i}.txt`, content: `race ${i}` }, A)]);
          results.push(r!);
        }
      }),
    );
    stop = true;
    await swapper;
    const ok = results.filter((r) => r.status === "fulfilled").length;
    console.log(`race: ${ok} writes landed inside, ${results.length - ok} refused; atime tracked: ${atimeTracked}`);
    // Refusals in the race must not leak host paths (e.g. a raw ENOENT from realpath).
    for (const r of results) if (r.status === "rejected") expect(String((r.reason as Error).message)).not.toContain(root);
    for (const r of results) outputs.push(r.status === "fulfilled" ? textOf(r.value) : (r.reason as Error).message);
    expect(readdirSync(join(outside, "racedir"))).toEqual([]); // still there, still empty
    count++;
  });

  it("resolveSandboxPath refuses device files inside a mount even without tools", async () => {
    await expect(resolveSandboxPath("fifo", A)).rejects.toBeInstanceOf(SandboxPathError);
    count++;
  });

  it("afterwards nothing outside the mounts was read or written", () => {
    // Same files outside and in thread B as before; unchanged content, mtime and (if tracked) atime.
    const now = [...filesUnder(outside), ...filesUnder(join(root, "threads", "B"))];
    expect(now).toEqual([...canaries.keys()].sort());
    for (const [p, before] of canaries) {
      const st = statSync(p);
      expect(st.mtimeMs, p).toBe(before.mtimeMs);
      if (atimeTracked) expect(st.atimeMs, `${p} was read`).toBe(before.atimeMs);
    }
    expect(readFileSync(join(outside, "canary.txt"), "utf8")).toBe(`${CANARY_TEXT}\nsecret line\n`);
    expect(readFileSync(join(B.workspace_path, "secret.txt"), "utf8")).toBe(`${CANARY_TEXT} thread B\n`);
    for (const o of outputs) expect(o).not.toContain(CANARY_TEXT);
    for (const o of successOutputs) expect(o).not.toContain(root);
    // Refusals may echo the path the model gave, but never reveal where a symlink leads.
    for (const o of outputs) expect(o).not.toMatch(/racedir|does-not-exist/);
    expect(count).toBeGreaterThanOrEqual(40);
    console.log(`escape attempts refused: ${count}`);
  });
});
