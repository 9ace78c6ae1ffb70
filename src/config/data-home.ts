// Where deerflow keeps its data (the "home"): --home, else DEERFLOW_HOME, else the "home" of the last .deerflowrc
// that sets one (relative to that file's folder), else ~/.deerflow. loadConfig applies this rule; peekDataHome applies
// it before the config is loaded (trust-store.ts peekDataHome: the debug log and the chat's start-up need the home
// before the runtime, which loads the config, is even compiled). A project file's "home" counts only when trusted.
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { ownedByUserOrRoot, projectFoldersUp } from "./project-folders.js";

export const RC_NAME = ".deerflowrc";

/** `~` and `~/…` under the user's home; relative paths against `baseDir`. */
export function expandHome(p: string, userHome: string, baseDir: string): string {
  if (p === "~") return userHome;
  if (p.startsWith("~/")) return join(userHome, p.slice(2));
  return isAbsolute(p) ? p : resolve(baseDir, p);
}

/** The nearest .deerflowrc from `cwd` upwards (project-folders.ts says which count), excluding the user's home one (read separately). */
export function findProjectRc(cwd: string, userRc: string): string | undefined {
  for (const dir of projectFoldersUp(cwd)) {
    const candidate = join(dir, RC_NAME);
    if (candidate !== userRc && existsSync(candidate) && ownedByUserOrRoot(candidate)) return candidate;
  }
  return undefined;
}

/** The project .deerflowrc files further up than `rc`, nearest first (the user's home one excluded). */
export function rcFilesAbove(rc: string, userRc: string): string[] {
  const out: string[] = [];
  for (let found = findProjectRc(dirname(dirname(rc)), userRc); found && found !== rc; found = findProjectRc(dirname(dirname(found)), userRc)) {
    out.push(found);
    if (dirname(found) === dirname(dirname(found))) break;
  }
  return out;
}

/** The config files in the order they apply (later wins): ~/.deerflowrc, then the project's. */
export function rcFiles(cwd: string, userHome: string): string[] {
  const userRc = join(userHome, RC_NAME);
  const projectRc = findProjectRc(cwd, userRc);
  return [...(existsSync(userRc) ? [userRc] : []), ...(projectRc ? [projectRc] : [])];
}

export interface HomeSources {
  flag?: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  userHome: string;
  /** The files' "home" values in the order they apply. */
  files: { path: string; home?: string }[];
}

/** The data directory the rule above gives (an empty flag or DEERFLOW_HOME counts as unset). */
export function dataHomeOf(s: HomeSources): string {
  const file = s.files.filter((f) => f.home).at(-1);
  if (s.flag || s.env.DEERFLOW_HOME) return expandHome((s.flag || s.env.DEERFLOW_HOME)!, s.userHome, s.cwd);
  return file ? expandHome(file.home!, s.userHome, dirname(file.path)) : join(s.userHome, ".deerflow");
}
