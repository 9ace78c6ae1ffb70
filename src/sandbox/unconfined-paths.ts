// Without a sandbox, where a read-only command's paths really lead. Spellings (`..`, `~`, an absolute path) are judged
// in shell-unconfined.ts; this follows the file system: a symlink the repository ships (`docs -> ~/.aws`), a glob
// that walks through one (`cat */credentials`), a `cd` into one, a folder read by a program told to follow links.
// The sixth adversarial pass read a credential through a shipped symlink with a command that ran unasked.
import { execFileSync } from "node:child_process";
import { accessSync, constants, existsSync, lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { hostProgramPath, onHostPath } from "./env-scrub.js";
import { longOption } from "./option-table.js";
import { SKILLS_VIRTUAL_ROOT, VIRTUAL_ROOT, isInside, isMountPath } from "./paths.js";
import type { ThreadPaths } from "./provider.js";
import type { SimpleCommand } from "./shell-command.js";
import { toHostPaths } from "./virtual-paths.js";

/** The thread's other folders on the host: sandboxed commands write there too, so their links are followed (A28-11). */
export type ThreadFolders = Partial<Pick<ThreadPaths, "uploads_path" | "outputs_path">>;

/** `arg` is `--<long>` or a GNU abbreviation of it (three letters at least: `--rec`, `--deref`). */
const longOpt = (arg: string, long: string) => longOption(arg, long, 3);

/** Programs and the flags that make them follow symlinks while they walk folders. */
const FOLLOWS_LINKS: Record<string, (a: string) => boolean> = {
  grep: (a) => /^-[\w#]*R/.test(a) || longOpt(a, "dereference-recursive"),
  egrep: (a) => /^-[\w#]*R/.test(a) || longOpt(a, "dereference-recursive"),
  fgrep: (a) => /^-[\w#]*R/.test(a) || longOpt(a, "dereference-recursive"),
  rg: (a) => /^-[\w#]*L/.test(a) || longOpt(a, "follow"),
  find: (a) => /^(?:-L|-H|-follow)$/.test(a),
  fd: (a) => /^-[\w#]*L/.test(a) || longOpt(a, "follow"),
  du: (a) => /^-[\w#]*L/.test(a) || longOpt(a, "dereference"),
  tree: (a) => a === "-l",
  ls: (a) => /^-[\w#]*L/.test(a) || longOpt(a, "dereference"),
  // GNU diff follows symlinks while it recurses (the seventh pass read a linked credential with `diff -r a b`).
  diff: (a) => /^-[\w#]*r/.test(a) || longOpt(a, "recursive"),
};
/** Programs that read a list of names or a program from a file an option names (`file -f list`, `jq -f q.jq`). */
const READS_NAMED_FILE: Record<string, (a: string) => boolean> = {
  file: (a) => /^-[\w#]*f/.test(a) || longOpt(a, "files-from"),
  jq: (a) => /^-[\w#]*[fL]/.test(a) || longOpt(a, "from-file") || longOpt(a, "library-path") || /\b(?:import|include)\b/.test(a),
};
const GLOB = /[*?[]/;
/** Programs that read no file named by their words: a word known only at run time is harmless there. */
const NO_PATHS = new Set(["echo", "printf", "test", "[", "true", "false", "pwd", "date", "basename", "dirname", "expr", "seq", "sleep", "id", "uname", "whoami", "hostname", "nproc"]);
const MAX_MATCHES = 5_000;

function real(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

/** What bash's pathname expansion makes of `pattern` in `dir` (nothing else is expanded: the word is data). */
function expandGlob(pattern: string, dir: string): string[] {
  // bash from the filtered host PATH: never one in a project folder on PATH (the eighteenth pass's LG; M1's family).
  const bash = onHostPath("bash", dir);
  if (!bash) return [pattern];
  try {
    const out = execFileSync(bash, ["-c", 'shopt -s nullglob; set -f; p=$1; set +f; for f in $p; do printf "%s\\0" "$f"; done', "_", pattern], {
      cwd: dir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 5_000,
      env: { PATH: hostProgramPath(process.env.PATH ?? "/usr/bin:/bin", dir) },
    });
    return out.split("\0").filter(Boolean).slice(0, MAX_MATCHES);
  } catch {
    return [pattern];
  }
}

/** The words that may name paths: arguments (an option's `=value` part) and redirection targets. */
function pathWords(c: SimpleCommand): { word: string; dynamic: boolean }[] {
  const end = c.args.indexOf("--");
  const args = c.args.flatMap((a, i) => {
    const dynamic = c.dynamicArgs[i] ?? false;
    // After `--` every word is a file, a dash or not (`cat -- -creds`, a link a repository ships: A28b-2).
    if (end >= 0 && i > end) return [{ word: a, operand: true, dynamic }];
    if (i === end) return [];
    // `--file=x` and dd's `of=x` name a path after the `=`; `cfg=x` may also be a file of that name (a link: A28b-4).
    if (a.includes("=") && /^-|^[a-z]+=/.test(a)) {
      const value = { word: a.slice(a.indexOf("=") + 1), operand: true, dynamic };
      return a.startsWith("-") ? [value] : [{ word: a, operand: true, dynamic }, value];
    }
    // A value glued to a short option may be a path: `cp -tU`, `sort -oU/x`, `tar -CU` with `U -> ..` wrote into the
    // home (the thirtieth pass's A30a-2). Where the letters end is not known, so each split is followed.
    const glued = /^-[A-Za-z][^-=]/.test(a) ? [...a.slice(2)].map((_, k) => ({ word: a.slice(2 + k), operand: true, dynamic })) : [];
    return [{ word: a, operand: !a.startsWith("-"), dynamic }, ...glued];
  });
  // A redirection's target with a `$` or a backquote is known only when it runs (`> "${PWD%/*}/x"`).
  const redirects = c.redirects.map((r) => ({ word: r.target, dynamic: /[$`]/.test(r.target) }));
  // An option word with an expansion in it may hold a path glued on (`-MF${PWD%/*}/x`, `-C$(dirname $PWD)`, A27-6/7).
  return [...args.filter((w) => w.operand || w.dynamic).map(({ word, dynamic }) => ({ word, dynamic })), ...redirects];
}

/**
 * The host path a word names, as the command will run it: every /mnt/user-data mention replaced the way
 * toHostPaths replaces it in the command line — also one glued after other text (`D/mnt/user-data/workspace/L`, with
 * `D/tmp -> /tmp`, ran as `D/<the workspace's host path>/L`: the thirtieth pass's A30a-1). Undefined when it names a
 * thread folder whose host path is not known, or a skill's.
 */
function hostWord(raw: string, top: string, folders: ThreadFolders): string | undefined {
  const word = toHostPaths(raw, { workspace_path: top, uploads_path: folders.uploads_path ?? "", outputs_path: folders.outputs_path ?? "" });
  // A skill's folder is replaced the same way, glued or not (`./mnt/skills/x/F`, with a skill link `F -> ~/.netrc`: the
  // thirty-second pass's A32c-2/3/4), and the audit does not know where skills lie on this host: not judged, asked.
  return new RegExp(`(?:${VIRTUAL_ROOT}/(?:uploads|outputs)|${SKILLS_VIRTUAL_ROOT})(?![\\w.-])`).test(word) ? undefined : word;
}

/** Search permission on the folder and every folder on its way: a cd there succeeds. */
function canEnter(dir: string): boolean {
  try {
    accessSync(dir, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** lstat without throwing: undefined for a path that is not there (ENOENT) or cannot be (ENOTDIR: a file on the way). */
function lstatOf(p: string) {
  try {
    return lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The path reaches /proc through a link on the way (followed hop by hop, as the kernel would). */
function viaProc(path: string, hops = 0): boolean {
  const parts = path.split("/").filter(Boolean);
  let at = "/";
  for (let i = 0; i < parts.length; i++) {
    const next = join(at, parts[i]!);
    const st = lstatOf(next);
    if (!st) return false;
    if (st.isSymbolicLink()) {
      if (hops > 40) return true;
      let to: string;
      try {
        to = resolve(at, readlinkSync(next));
      } catch {
        return false;
      }
      return /^\/proc(?:\/|$)/.test(to) || viaProc(join(to, ...parts.slice(i + 1)), hops + 1);
    }
    at = next;
  }
  return false;
}

/**
 * Why where `abs` leads cannot be known from deerflow's own process: a link on the way goes through /proc (whose
 * `self` and `self/cwd` are the reader's, not deerflow's), or leads to nothing yet (it may lead anywhere once the
 * command runs). The twenty-ninth pass's A29a-1/3 shipped `sub/x -> /proc/self/cwd/../../.aws/credentials`: dangling
 * from deerflow's folder, the home's credentials from the command's after `cd sub`.
 */
function unfollowable(abs: string): string | undefined {
  if (viaProc(abs)) return `${abs} leads through /proc by a link, which leads somewhere else for each process`;
  for (let p = abs; dirname(p) !== p; p = dirname(p)) {
    if (lstatOf(p)?.isSymbolicLink() && real(p) === undefined) return `${p} is a link to something that does not exist`;
  }
  return undefined;
}

/** `path` when it exists, else its nearest existing ancestor (undefined when none is). */
function nearestExisting(path: string): string | undefined {
  for (let p = path; ; p = dirname(p)) {
    if (existsSync(p)) return p;
    if (dirname(p) === p) return undefined;
  }
}

/** Why one path a command names leads out of `inside` once links are followed, read from the folder `from`. */
function leadsOut(p: string, from: string, inside: (p: string) => boolean, name: string): string | undefined {
  const abs = isAbsolute(p) ? p : resolve(from, p);
  const unknown = unfollowable(abs);
  if (unknown) return unknown;
  // A file not there yet is made where its nearest existing folder really is: `vendor -> ..` then
  // `vendor/.gitconfig` creates a home file (the fifteenth pass).
  const existing = nearestExisting(abs);
  if (existing !== abs) {
    const folder = existing ? real(existing) : undefined;
    return folder && !inside(folder) ? `${p} would be made in ${folder}` : undefined;
  }
  const r = real(abs);
  if (r && !inside(r)) return `${p} leads to ${r}`;
  // Given a folder, GNU diff compares the files directly inside it, following their links, even without -r (the
  // eleventh pass read linked credentials with `diff -N cfg defaults`).
  if (name === "diff" && r && statSync(r).isDirectory()) return `${p} is a folder: diff reads the files in it through their links`;
  return undefined;
}

/**
 * Why this read-only command reads outside `workspace` once links are followed, or undefined. A word whose value is
 * known only when it runs (`cat $f`) counts as outside: nothing here can tell where it leads.
 */
export function leavesWorkspaceByLinks(c: SimpleCommand, workspace: string, folders: ThreadFolders = {}): string | undefined {
  const top = real(workspace);
  if (!top || c.cwd.at !== "workspace") return undefined;
  // Inside means inside the workspace or one of the thread's folders, links followed (a link in outputs/ to the
  // workspace stays in; one to the home does not).
  const roots = [top, ...[folders.uploads_path, folders.outputs_path].flatMap((f) => (f ? (real(f) ?? []) : []))];
  const inside = (p: string) => roots.some((r) => isInside(p, r));
  const dir = join(top, c.cwd.rel ?? "");
  const here = real(dir);
  if (here && !isInside(here, top)) return `it runs in ${c.cwd.rel ?? "the workspace"}, a link to ${here}`;
  // A `cd` into a folder that is not there fails, and the next `cd` then starts from somewhere the words do not say
  // (`cd nosuch; cd sub; cat F`, `pushd -n x; pushd +1`: the thirty-first pass's A31a-1/2/4): where it runs is unknown.
  // One it may not enter (`chmod 000 sub`) fails the cd the same way (its `||` branch runs where the words do not say).
  if (c.cwd.rel && !(here && statSync(here, { throwIfNoEntry: false })?.isDirectory() && canEnter(here)))
    return `it runs after a cd into ${c.cwd.rel}, which is not a folder it can enter here, so where it runs is not known`;
  const odd = unfollowable(dir);
  if (odd) return `it runs where ${odd}`;
  if (FOLLOWS_LINKS[c.name] && c.args.some(FOLLOWS_LINKS[c.name]!)) return `${c.name} is told to follow symlinks out of the folders it reads`;
  // jq reads modules and programs from any folder it is told (`-L /tmp`, `import "…" as $a`, `-f q.jq`).
  if (READS_NAMED_FILE[c.name] && c.args.some(READS_NAMED_FILE[c.name]!)) return `${c.name} is told to read what another file names`;
  for (const { word: raw, dynamic } of pathWords(c)) {
    if (NO_PATHS.has(c.name) && !c.redirects.some((r) => r.target === raw)) continue;
    if (dynamic) return `${raw} is known only when it runs`;
    // `~+` is $PWD and `~-` is $OLDPWD (inherited from the user's shell): a tilde is never judged as written.
    if (raw.startsWith("~")) return `${raw} names a folder by the shell's tilde`;
    // A /mnt/user-data path is its thread folder on the host: its links are followed the same way.
    const word = hostWord(raw, top, folders);
    if (word === undefined) return `${raw} is in a thread or skill folder whose place on this host is not known here`;
    if (word === "" || isMountPath(word) || word === "/dev/null") continue;
    // Every `cd` on the way landed (a folder that is not there asks above): the words are read from `here`.
    const candidates = GLOB.test(word) ? expandGlob(word, here ?? dir) : [word];
    if (candidates.length >= MAX_MATCHES) return `${raw} matches too many paths to follow`;
    for (const p of candidates) {
      const why = leadsOut(p, here ?? dir, inside, c.name);
      if (why) return why;
    }
  }
  return undefined;
}
