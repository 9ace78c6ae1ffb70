// What the user's own git reads as configuration on the host, for a folder: every entry of every config file (system,
// global, the repository's, and what they include), with the file it came from, and the places git looks for a global
// config file that does not exist yet. Reading config runs nothing. The values are as git uses them: `~/` and
// `~user/` expanded (the fourteenth pass's G4 planted code through `include.path = ~/dotfiles/…`, which an inside
// check of the raw text took for "not in the workspace").
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { hostEnv, hostPath } from "./env-scrub.js";

export interface GitConfigEntry {
  /** As git prints it: lower-case section and name, the subsection as written. */
  key: string;
  value: string;
  /** The absolute path of the config file that holds it. */
  file: string;
}

/** The git found on PATH, never one from a folder a sandboxed command could write (env-scrub.ts hostPath). */
const git = (args: string[]) =>
  execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 5_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, PATH: hostPath(process.env.PATH ?? "") } });

/** Every config entry git reads in `cwd`, each with its file; empty when git is missing. */
export function readGitConfig(cwd: string): GitConfigEntry[] {
  let text = "";
  try {
    // --includes: a key set in an included file counts too; -z: the origin's path unquoted.
    text = git(["-C", cwd, "config", "--includes", "--show-origin", "-z", "--list"]);
  } catch {
    return [];
  }
  const out: GitConfigEntry[] = [];
  const fields = text.split("\0");
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const origin = fields[i]!;
    const entry = fields[i + 1]!;
    const cut = entry.indexOf("\n");
    if (!origin.startsWith("file:")) continue; // command line or blob: no file the sandbox could write
    // git prints the section and name lower-case already (a subsection keeps its case).
    out.push({ key: cut < 0 ? entry : entry.slice(0, cut), value: cut < 0 ? "" : entry.slice(cut + 1), file: resolve(cwd, origin.slice(5)) });
  }
  return out;
}

/** The home of `user` (passwd), or undefined. `getent` from the filtered host PATH, as git (the seventeenth pass's L6). */
function homeOf(user: string): string | undefined {
  try {
    return execFileSync("getent", ["passwd", user], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 2_000, env: hostEnv() }).split(":")[5] || undefined;
  } catch {
    return undefined;
  }
}

/** `value` with a leading `~` or `~user` expanded as git's path type does; undefined when the user is unknown. */
export function expandTilde(value: string): string | undefined {
  const m = /^~([^/]*)(?=\/|$)/.exec(value);
  if (!m) return value;
  const home = m[1] ? homeOf(m[1]) : (process.env.HOME ?? homedir());
  return home ? `${home}${value.slice(m[0].length)}` : undefined;
}

/** Where the user's git reads a global config file, whether it exists or not (a command could create one). */
export function globalConfigFiles(home = process.env.HOME ?? homedir()): string[] {
  if (process.env.GIT_CONFIG_GLOBAL) return [resolve(process.env.GIT_CONFIG_GLOBAL)];
  const xdg = process.env.XDG_CONFIG_HOME && isAbsolute(process.env.XDG_CONFIG_HOME) ? process.env.XDG_CONFIG_HOME : join(home, ".config");
  return [join(home, ".gitconfig"), join(xdg, "git", "config")];
}

/** The global config files and the system one (git's default place, or GIT_CONFIG_SYSTEM): what every repository reads. */
export function userAndSystemConfigFiles(): string[] {
  const system = process.env.GIT_CONFIG_NOSYSTEM ? [] : [process.env.GIT_CONFIG_SYSTEM ? resolve(process.env.GIT_CONFIG_SYSTEM) : "/etc/gitconfig"];
  return [...globalConfigFiles(), ...system];
}

/** Keys whose value runs or names code but is no program path: a folder git trusts, the worktree's place. */
const NOT_A_PROGRAM = /^(?:safe\.directory|core\.worktree|protocol\..*)$/;

/**
 * The program a code key's value names, when it names one by an absolute or `~` path (`core.editor = ~/bin/ed --wait`,
 * `alias.x = !~/bin/x`, `init.templateDir`): its first word, expanded. A bare name is looked up on PATH (hostPath's
 * business); a relative one depends on where git runs.
 */
export function programPathOf(key: string, value: string): string | undefined {
  if (NOT_A_PROGRAM.test(key)) return undefined;
  const first = value.replace(/^!/, "").trim().split(/\s+/)[0] ?? "";
  const word = first.replace(/^["']|["']$/g, "");
  if (!word.startsWith("/") && !word.startsWith("~")) return undefined;
  return expandTilde(word);
}

/**
 * The files of the worktree a code key's command runs, where git runs it (the worktree's top, `top`): every word that
 * is a relative path (`filter.x.clean = ./tools/clean.sh`, `sh scripts/textconv.sh`) and the module an interpreter is
 * given with `-m` (`python3 -m nbstripout`: `nbstripout.py` or the folder `nbstripout/` at the top, which Python
 * imports before an installed one). The nineteenth pass's GC1: a sandboxed write to such a file ran on the host at
 * the user's next `git diff`.
 */
export function worktreeProgramsOf(key: string, value: string, top: string): string[] {
  if (NOT_A_PROGRAM.test(key)) return [];
  const words = value
    .replace(/^!/, "")
    .trim()
    .split(/\s+/)
    .map((w) => w.replace(/^["']|["']$/g, ""));
  const out: string[] = [];
  words.forEach((w, i) => {
    if (words[i - 1] === "-m" && /^[A-Za-z_][\w.]*$/.test(w)) {
      const mod = w.split(".")[0]!;
      // A sourceless `.pyc` imports too (the twentieth pass's GC1b).
      out.push(join(top, `${mod}.py`), join(top, `${mod}.pyc`), join(top, mod));
    } else if (!w.startsWith("-") && !w.startsWith("/") && !w.startsWith("~") && !w.includes("$") && !/^[a-z][\w+.-]*:/i.test(w)) {
      // A path (`./tools/clean.sh`), or after the program a file name at the top, there or not yet
      // (`python3 clean.py`, `sh tc.sh`: GC1b); the program itself is looked up on PATH.
      const fileName = i > 0 && (/^[\w.-]+\.[A-Za-z0-9]{1,5}$/.test(w) || existsSync(join(top, w)));
      if (w.startsWith(".") || w.includes("/") || fileName) out.push(resolve(top, w));
    }
  });
  return out;
}
