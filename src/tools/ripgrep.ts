// ripgrep (`rg`) as the search engine of grep and glob when it is installed (Debian/Ubuntu/Fedora/Homebrew package
// `ripgrep`); nothing is downloaded. It runs on the host, outside the shell sandbox, so it is held on a short leash:
// no --follow (symlinks are never followed), no config file, no stdin, output read as a
// stream and cut off (the process killed) as soon as the caller has enough, on cancel, or after a time limit. Its
// results are still only candidates: the callers check every path and re-read every matching file through the
// safe path before showing anything (a directory swapped for a symlink mid-walk must not leak a byte).
import { spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { hostProgramPath } from "../sandbox/env-scrub.js";

/** A search that runs longer than this is stopped; what was found so far is returned with a note. */
export const RG_TIME_LIMIT_MS = 120_000;

const found = new Map<string, string | null>();

/**
 * The `rg` on the host's filtered PATH (cached per PATH), or null when ripgrep is not installed. Filtered as every
 * program deerflow runs on the host (env-scrub.ts hostProgramPath): an `rg` a sandboxed command wrote into the
 * project's `node_modules/.bin` on PATH ran on the host (the seventeenth pass's M2).
 */
export function findRipgrep(path = hostProgramPath(process.env.PATH ?? "")): string | null {
  if (found.has(path)) return found.get(path)!;
  let hit: string | null = null;
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, "rg");
    try {
      accessSync(candidate, constants.X_OK);
      hit = candidate;
      break;
    } catch {
      /* not here */
    }
  }
  found.set(path, hit);
  return hit;
}

export interface RgRun {
  /** Records (split on `separator`), as raw bytes: a file name need not be UTF-8. */
  records: AsyncGenerator<Buffer>;
  /** Settles when rg has exited: its exit code (null when we killed it) and the end of its stderr. */
  done: Promise<{ code: number | null; stderr: string; stoppedBy?: "limit" | "abort" | "time" }>;
}

/**
 * Run rg in `cwd` and stream its stdout records. Leaving the loop early (break/return) kills rg. `rules` (gitignore
 * lines) are handed over as an `--ignore-file` in a private temporary directory, removed when rg exits (Node's
 * stdin is a socket, which rg cannot open as /dev/stdin).
 */
export function runRipgrep(rg: string, args: string[], options: { cwd: string; rules?: string; separator: number; signal?: AbortSignal; timeLimitMs?: number }): RgRun {
  let rulesDir: string | undefined;
  if (options.rules) {
    rulesDir = mkdtempSync(join(tmpdir(), "deerflow-rg-"));
    writeFileSync(join(rulesDir, "ignore"), options.rules, { mode: 0o600 });
    args = ["--ignore-file", join(rulesDir, "ignore"), ...args];
  }
  const child = spawn(rg, args, { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "", LANG: "C.UTF-8" } });
  let stoppedBy: "limit" | "abort" | "time" | undefined;
  const stop = (why: "limit" | "abort" | "time") => {
    if (child.exitCode === null && child.signalCode === null) {
      stoppedBy ??= why;
      child.kill("SIGKILL");
    }
  };
  const onAbort = () => stop("abort");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => stop("time"), options.timeLimitMs ?? RG_TIME_LIMIT_MS);
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    if (stderr.length < 4096) stderr += d.toString("utf8");
  });
  const cleanup = () => {
    if (rulesDir) rmSync(rulesDir, { recursive: true, force: true });
  };
  const done = new Promise<{ code: number | null; stderr: string; stoppedBy?: "limit" | "abort" | "time" }>((resolve) => {
    child.on("close", (code) => {
      cleanup();
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({ code, stderr: stderr.trim(), stoppedBy });
    });
    child.on("error", (err) => {
      cleanup();
      clearTimeout(timer);
      resolve({ code: 2, stderr: String((err as Error).message), stoppedBy });
    });
  });
  async function* records(): AsyncGenerator<Buffer> {
    let pending: Buffer = Buffer.alloc(0);
    let complete = false;
    try {
      for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
        let data = pending.length ? Buffer.concat([pending, chunk]) : chunk;
        let at: number;
        while ((at = data.indexOf(options.separator)) !== -1) {
          yield data.subarray(0, at);
          data = data.subarray(at + 1);
        }
        pending = Buffer.from(data);
      }
      complete = true;
      if (pending.length) yield pending;
    } finally {
      if (!complete) stop("limit");
    }
  }
  return { records: records(), done };
}
