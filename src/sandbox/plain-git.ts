// git as the guards run it on the host to read a repository they do not trust: an index listed, a config file read.
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostEnv, hostPath } from "./env-scrub.js";

/**
 * What a config listing may take: real configs are kilobytes. A padded one (the sixteenth pass's G8 listed 300 MB) fails
 * here and counts as code, without the process holding a quarter of a gigabyte. An index listing keeps the larger bound.
 */
export const CONFIG_LISTING_BYTES = 8 * 1024 * 1024;

/**
 * git as deerflow runs it on the host: nothing of the environment's GIT_*, no system or global config, and no
 * repository config at all where `gitDir` is given (an empty repository of our own, reading `index` through
 * GIT_INDEX_FILE): the seventh pass made the nested-repository guard's own `git ls-files` run a planted core.fsmonitor by pointing
 * the workspace's commondir at a planted config. `core.fsmonitor=false` besides, should any config be read.
 */
export function plainGit(
  args: string[],
  opts: { cwd?: string; index?: string; format?: "sha1" | "sha256"; maxBytes?: number; workTree?: string; input?: string; bare?: "sha1" | "sha256"; objects?: string; timeoutMs?: number } = {},
): string {
  const env: Record<string, string> = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("GIT_")) env[k] = v;
  // The git found on PATH, never one from a folder a sandboxed command could write (env-scrub.ts hostPath).
  env.PATH = hostPath(process.env.PATH ?? "");
  if (opts.index) {
    // A FIFO (or device) where an index belongs blocked git's open until the time limit, with deerflow waiting (the
    // thirty-sixth pass's A36a-7): only a regular file is read.
    if (!lstatSync(opts.index, { throwIfNoEntry: false })?.isFile()) throw new Error(`${opts.index} is not a regular file`);
    Object.assign(env, { GIT_DIR: emptyRepo(opts.format ?? "sha1"), GIT_INDEX_FILE: opts.index });
  }
  // A command that needs a repository but none of the workspace's (index-pack --verify of a pack there).
  if (opts.bare) env.GIT_DIR = emptyRepo(opts.bare);
  // Under it, a workspace's object store to read (a cache verified against it): objects only, never its config.
  if (opts.bare && opts.objects) env.GIT_OBJECT_DIRECTORY = opts.objects;
  // Our empty repository is bare: a command that writes the index for paths (update-index) needs the worktree named.
  if (opts.workTree) env.GIT_WORK_TREE = opts.workTree;
  return execFileSync("git", ["-c", "core.fsmonitor=false", ...args], {
    cwd: opts.cwd,
    env,
    encoding: "utf8",
    ...(opts.input === undefined ? { stdio: ["ignore", "pipe", "pipe"] } : { input: opts.input, stdio: ["pipe", "pipe", "pipe"] }),
    timeout: opts.timeoutMs ?? 10_000,
    maxBuffer: opts.maxBytes ?? 256 * 1024 * 1024,
  });
}

const empties = new Map<string, string>();
/** A bare repository of deerflow's own, with nothing in its config, per object format: the git dir an index is read under. */
function emptyRepo(format: "sha1" | "sha256"): string {
  const known = empties.get(format);
  if (known && existsSync(known)) return known;
  const dir = mkdtempSync(join(tmpdir(), "deerflow-git-"));
  execFileSync("git", ["init", "-q", "--bare", `--object-format=${format}`, dir], { stdio: "ignore", env: { ...hostEnv(), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" } });
  empties.set(format, dir);
  return dir;
}
