// Spawns the built `bin/deerflow` as a user would, with a private home and HOME so no test touches real user data.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";

export const BIN = fileURLToPath(new URL("../../bin/deerflow", import.meta.url));

/**
 * One code cache (DEERFLOW_CACHE_DIR, src/config/cache-home.ts) for every CLI the suite spawns, whatever its fresh
 * HOME and DEERFLOW_HOME: the first start compiles the bundles, the rest use that code (as a user's second start
 * does). Per user (a directory another user made is not used, and costs only speed) and per checkout (two checkouts
 * building different bundles would push each other's caches out); a test about the cache itself sets its own.
 */
export const SUITE_CODE_CACHE = join(tmpdir(), `deerflow-test-code-cache-${process.getuid?.() ?? "user"}-${createHash("sha256").update(BIN).digest("hex").slice(0, 12)}`);

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface Sandbox {
  /** Stands in for the user's home (~/.deerflowrc lives here). */
  userHome: string;
  /** DEERFLOW_HOME. */
  home: string;
  /** A working directory inside userHome. */
  cwd: string;
  env: Record<string, string>;
  run(args: string[], opts?: { input?: string; env?: Record<string, string | undefined>; cwd?: string; timeoutMs?: number }): Promise<CliResult>;
  spawn(args: string[], opts?: { env?: Record<string, string | undefined>; cwd?: string }): ResultPromise;
  cleanup(): void;
}

/** A fresh isolated environment. `modelUrl` (the test server) becomes OPENAI_BASE_URL when given. */
export function makeSandbox(modelUrl?: string): Sandbox {
  const root = mkdtempSync(join(tmpdir(), "deerflow-test-"));
  const userHome = join(root, "user");
  const cwd = join(userHome, "project");
  const home = join(root, "deerflow-home");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: userHome,
    DEERFLOW_HOME: home,
    NO_COLOR: "1",
    // No test depends on what runs on this machine's usual model ports (first-run discovery).
    DEERFLOW_DISCOVER_PORTS: "none",
    DEERFLOW_CACHE_DIR: SUITE_CODE_CACHE,
  };
  if (modelUrl) {
    env.OPENAI_BASE_URL = modelUrl;
    env.OPENAI_API_KEY = "sk-test-key-123456";
    env.DEERFLOW_MODEL = "test-model";
  }
  mkdirSync(cwd, { recursive: true });
  const spawn = (args: string[], opts: { env?: Record<string, string | undefined>; cwd?: string } = {}) =>
    execa(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? cwd,
      env: { ...env, ...opts.env },
      extendEnv: false,
      reject: false,
      stripFinalNewline: false,
      // No test writes to a spawned run's stdin; an open pipe would be waited for (a run reads piped stdin).
      stdin: "ignore",
    });
  return {
    userHome,
    home,
    cwd,
    env,
    spawn,
    async run(args, opts = {}) {
      const child = execa(process.execPath, [BIN, ...args], {
        cwd: opts.cwd ?? cwd,
        env: { ...env, ...opts.env },
        extendEnv: false,
        reject: false,
        stripFinalNewline: false,
        input: opts.input,
        stdin: opts.input === undefined ? "ignore" : undefined,
        timeout: opts.timeoutMs ?? 60_000,
      });
      const r = await child;
      // A run killed by a signal or the time limit has no exit code: its stderr says which, so the failing assertion does.
      const killed = r.timedOut ? `\n[test harness: timed out after ${opts.timeoutMs ?? 60_000} ms]` : r.signal ? `\n[test harness: killed by ${r.signal}]` : "";
      return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) + killed };
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
