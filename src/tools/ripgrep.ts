// ripgrep (`rg`) as the search engine of grep and glob when it is installed (Debian/Ubuntu/Fedora/Homebrew package
// `ripgrep`); nothing is downloaded. It runs on the host, outside the shell sandbox, so it is held on a short leash:
// no --follow (symlinks are never followed), no config file, stdin only for rules we hand it, output read as a
// stream and cut off (the process killed) as soon as the caller has enough, on cancel, or after a time limit. Its
// results are still only candidates: the callers check every path and re-read every matching file through the
// safe path before showing anything (a directory swapped for a symlink mid-walk must not leak a byte).
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** A search that runs longer than this is stopped; what was found so far is returned with a note. */
export const RG_TIME_LIMIT_MS = 120_000;

const found = new Map<string, string | null>();

/** The `rg` on PATH (cached per PATH), or null when ripgrep is not installed. */
export function findRipgrep(path = process.env.PATH ?? ""): string | null {
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
 * Run rg in `cwd` and stream its stdout records. Leaving the loop early (break/return) kills rg. `stdin` is written
 * and closed (rules for `--ignore-file /dev/stdin`); without it stdin is closed at once.
 */
export function runRipgrep(rg: string, args: string[], options: { cwd: string; stdin?: string; separator: number; signal?: AbortSignal; timeLimitMs?: number }): RgRun {
  const child = spawn(rg, args, { cwd: options.cwd, stdio: ["pipe", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "", LANG: "C.UTF-8" } });
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
  child.stdin.on("error", () => undefined); // rg may exit before reading its rules
  child.stdin.end(options.stdin ?? "");
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    if (stderr.length < 4096) stderr += d.toString("utf8");
  });
  const done = new Promise<{ code: number | null; stderr: string; stoppedBy?: "limit" | "abort" | "time" }>((resolve) => {
    child.on("close", (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({ code, stderr: stderr.trim(), stoppedBy });
    });
    child.on("error", (err) => {
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
