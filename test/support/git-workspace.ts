// A thread whose workspace is a git repository with one commit, the user's host git to act on it (no global config
// of the test machine), and a shell runner in the sandbox (bwrap, or the same commands unconfined: "fallback" takes
// bwrap off PATH until the caller's afterEach puts PATH back). For the git guard tests, in-process.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runShell } from "../../src/sandbox/run-shell.js";
import { defaultShellSettings } from "../../src/sandbox/shell-settings.js";
import { makeRoot, makeThread } from "../tools/helpers.js";
import { type Mode, pathWithout } from "./confinement.js";

export function gitWorkspace(prefix: string, mode: Mode) {
  const root = makeRoot(prefix);
  const paths = makeThread(root, "A");
  const ws = paths.workspace_path;
  writeFileSync(join(ws, "README.md"), "hi\n");
  const hostEnv = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd, encoding: "utf8", env: hostEnv, stdio: ["ignore", "pipe", "pipe"] });
  git(ws, "init", "-q", "-b", "main");
  git(ws, "add", ".");
  git(ws, "commit", "-q", "-m", "init");
  if (mode === "fallback") process.env.PATH = pathWithout(join(root, "nobwrap-bin"), ["bwrap"]);
  const settings = defaultShellSettings({ userHome: join(root, "home"), dataDir: join(root, "data") });
  const sh = async (command: string, timeoutSeconds = 60) => (await runShell(command, { paths, settings, cwd: ws, timeoutSeconds })).output;
  return { root, paths, ws, settings, git, sh };
}
