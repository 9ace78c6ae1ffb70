// Where a command runs, as the audit follows `cd` and `pushd` along a command line: the one home of the working-folder
// model the rules read (shell-grammar.ts moves it, shell-audit.ts and the unconfined checks judge words from it).
import { VIRTUAL_ROOT } from "./paths.js";

/** The top-level folders of the filesystem the rules treat as the system's. */
export const SYSTEM_DIRS = "bin|boot|dev|etc|home|lib\\w*|opt|proc|root|sbin|srv|sys|usr|var";
const SYSTEM_DIR = new RegExp(`^/(?:${SYSTEM_DIRS})$`);

/**
 * Where a command runs, as far as the audit can tell: the workspace (`depth` directories below it), the home
 * directory, the filesystem root or a top-level system directory ("root"), elsewhere, or unknown; in the workspace,
 * `rel` is the folder below its top (`a/b`, "" at the top).
 */
export type Cwd = { at: "workspace"; depth: number; rel?: string } | { at: "home" | "root" | "outside" | "unknown" };

const WORKSPACE = `${VIRTUAL_ROOT}/workspace`;

/** Where `cd <operand>` from `cwd` leads. */
export function cdTarget(cwd: Cwd, c: { name?: string; args: string[]; dynamicArgs: boolean[] }): Cwd {
  // `--` ends the options (`cd -- ..`: the twelfth pass). An option bash does not take here (`-@` on Linux) or a second
  // operand fails the cd, which stays where it was (A33b-1/3 read a link from the folder the audit thought it was in).
  let i = 0;
  for (; i < c.args.length && c.args[i] !== "--" && /^-./.test(c.args[i]!); i++) if (!/^-[LPe]+$/.test(c.args[i]!)) return { at: "unknown" };
  if (c.args[i] === "--") i++;
  if (i >= c.args.length || c.args.length - i > 1) return i >= c.args.length ? { at: "home" } : { at: "unknown" };
  const dir = c.args[i]!;
  // pushd's `+N`/`-N` rotates its stack, whatever folder of that name a repository ships (A34b-1).
  if (c.name === "pushd" && /^[+-]\d+$/.test(dir)) return { at: "unknown" };
  if (c.dynamicArgs[i]) return /^\$\{?HOME\}?\/?$/.test(dir) ? { at: "home" } : { at: "unknown" };
  if (dir === "-") return { at: "unknown" };
  if (/^~\/*$/.test(dir)) return { at: "home" };
  if (dir.startsWith("~")) return { at: "outside" };
  if (dir.startsWith("/")) {
    const norm = dir
      .replace(/\/+/g, "/")
      .replace(/\/\.(?=\/|$)/g, "")
      .replace(/\/$/, "");
    if (norm === "" || /^(?:\/\.\.)+$/.test(norm) || SYSTEM_DIR.test(norm)) return { at: "root" };
    if (norm === WORKSPACE || norm.startsWith(`${WORKSPACE}/`)) return walkDown({ at: "workspace", depth: 0 }, norm.slice(WORKSPACE.length));
    return { at: "outside" };
  }
  return walkDown(cwd, dir);
}

/** Where the relative path `rel` leads from `from` (`..` past the workspace's top leaves it). */
export function walkDown(from: Cwd, rel: string): Cwd {
  let at: Cwd = { ...from };
  for (const seg of rel.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (at.at === "workspace") {
      const segs = at.rel ? at.rel.split("/") : [];
      if (seg === ".." && at.depth === 0) at = { at: "outside" };
      else {
        if (seg === "..") segs.pop();
        else segs.push(seg);
        at = { at: "workspace", depth: at.depth + (seg === ".." ? -1 : 1), rel: segs.join("/") };
      }
    } else if (at.at === "root") at = seg === ".." ? at : { at: "outside" };
    else if (at.at === "home") at = { at: "outside" };
  }
  return at;
}
