// Which paths a search skips by default: what the repository ignores, the way ripgrep decides it, so the
// JavaScript walker and ripgrep return the same files.
//   - Ignore files are read from the root of the mount being searched (the workspace, uploads or outputs) down,
//     never above it: rules outside the thread's folders do not apply. In each directory: `.gitignore`, and
//     `.ignore` (which wins over any .gitignore, as in ripgrep); a deeper file wins over a shallower one; the
//     repository's `.git/info/exclude` at the mount root comes last. No git repository is required.
//   - `.git` is never searched; `node_modules` is skipped unless asked for (include_ignored, or the search names it),
//     ignored or not.
//   - The folder searched is never itself ignored (asking for `node_modules/zod` searches it).
// The gitignore pattern semantics come from the `ignore` package (the one eslint and prettier use).
import { readRegularFile } from "../sandbox/regular-file.js";
import { join, posix } from "node:path";
import ignore, { type Ignore } from "ignore";

/** Directories a search never enters; `node_modules` only when it is not asked for. */
export const ALWAYS_SKIPPED = ".git";
export const VENDOR_DIR = "node_modules";
export const IGNORE_FILES = [".gitignore", ".ignore"] as const;
export const GIT_EXCLUDE = ".git/info/exclude";
/** Ignore files bigger than this are not read (a generated one could be huge). */
const IGNORE_FILE_MAX_BYTES = 1024 * 1024;

/** An ignore file's text; a symlink, FIFO, directory or oversized file counts as no rules. */
function readRules(hostPath: string): string | undefined {
  return readRegularFile(hostPath, IGNORE_FILE_MAX_BYTES)?.toString("utf8");
}

interface Level {
  /** The directory the rules belong to, relative to the mount root ("" for the root). */
  dir: string;
  gitignore?: Ignore;
  dotignore?: Ignore;
}

function levelFor(hostDir: string, dir: string): Level | undefined {
  const gi = readRules(join(hostDir, ".gitignore"));
  const di = readRules(join(hostDir, ".ignore"));
  if (gi === undefined && di === undefined) return undefined;
  return { dir, gitignore: gi === undefined ? undefined : ignore().add(gi), dotignore: di === undefined ? undefined : ignore().add(di) };
}

type Verdict = { ignored: boolean; unignored: boolean };

/**
 * The rules' verdict on the path ITSELF. ignore's public test() also counts an ignored parent directory, which a
 * walk never needs (it does not enter ignored directories) and which would be wrong for a folder searched inside
 * an ignored one (node_modules/zod): ripgrep, too, matches each entry by its own path. The package's rule list
 * (`_rules.test`, ignore 7.0.17, pinned) gives exactly that; the public test() is the fallback.
 */
function ownVerdict(ig: Ignore, p: string): Verdict {
  const rules = (ig as unknown as { _rules?: { test?: (path: string, mode: string) => Verdict } })._rules;
  return typeof rules?.test === "function" ? rules.test(p, "regex") : ig.test(p);
}

function verdict(levels: readonly Level[], key: "gitignore" | "dotignore", rel: string, isDir: boolean): boolean | undefined {
  for (let i = levels.length - 1; i >= 0; i--) {
    const l = levels[i]!;
    const ig = l[key];
    if (!ig) continue;
    const p = (l.dir ? rel.slice(l.dir.length + 1) : rel) + (isDir ? "/" : "");
    const r = ownVerdict(ig, p);
    if (r.ignored) return true;
    if (r.unignored) return false;
  }
  return undefined;
}

/**
 * The rules in force in one directory of a walk; `child` descends. Immutable, so a walk can branch freely. It
 * mirrors how ripgrep is run (search-files.ts): the ignore files of the folder searched and below are read as the
 * walk meets them (deeper wins; any .ignore before any .gitignore); the folders above it, the mount root's
 * .git/info/exclude and the node_modules override come as one explicit file with the lowest precedence.
 */
export class IgnoreStack {
  private constructor(
    private readonly levels: readonly Level[],
    private readonly explicit: Ignore | undefined,
  ) {}

  /**
   * The rules for a walk of `baseRel` (relative to the mount root `rootHost`). `vendor`: node_modules was asked
   * for, so a rule that ignores a node_modules folder gives way (unless a file inside the walk says otherwise).
   */
  static forWalk(rootHost: string, baseRel: string, options: { vendor?: boolean } = {}): IgnoreStack {
    const rules = explicitRules(rootHost, baseRel, options);
    return new IgnoreStack([], rules ? ignore().add(rules) : undefined).child(join(rootHost, ...(baseRel ? baseRel.split("/") : [])), baseRel);
  }

  /** The stack inside directory `rel` (host path `hostDir`): its own ignore files added. */
  child(hostDir: string, rel: string): IgnoreStack {
    const level = levelFor(hostDir, rel);
    return level ? new IgnoreStack([...this.levels, level], this.explicit) : this;
  }

  /** Whether the entry at `rel` (relative to the mount root) is ignored. */
  ignores(rel: string, isDir: boolean): boolean {
    const v = verdict(this.levels, "dotignore", rel, isDir) ?? verdict(this.levels, "gitignore", rel, isDir);
    if (v !== undefined) return v;
    return this.explicit ? ownVerdict(this.explicit, rel + (isDir ? "/" : "")).ignored : false;
  }
}

/**
 * A gitignore rule of the file in directory `dir` (relative to the mount root), rewritten to mean the same from
 * the mount root: ripgrep is run from the mount root and reads the ignore files of the folder it searches and
 * below itself, so the rules of the folders above it (up to the mount root) are handed to it this way.
 */
export function rebaseRule(line: string, dir: string): string | undefined {
  let rule = line.replace(/\r$/, "");
  if (rule.trim() === "" || rule.startsWith("#")) return undefined;
  if (!dir) return rule;
  const negated = rule.startsWith("!");
  if (negated) rule = rule.slice(1);
  const body = rule.endsWith("/") ? rule.slice(0, -1) : rule;
  // A slash at the start or in the middle anchors the rule to its directory; otherwise it matches at any depth.
  const anchored = body.includes("/");
  const rebased = anchored ? posix.join(dir, rule.replace(/^\//, "")) + (rule.endsWith("/") ? "/" : "") : `${dir}/**/${rule}`;
  return `${negated ? "!" : ""}/${rebased.replace(/^\/+/, "")}`;
}

/**
 * The rules ripgrep would not find by itself when it searches `baseRel`, relative to the mount root: the mount
 * root's .git/info/exclude, then each folder's .gitignore and .ignore from the mount root down to (not including)
 * `baseRel`, rebased; last `!node_modules/` when node_modules was asked for.
 */
export function explicitRules(rootHost: string, baseRel: string, options: { vendor?: boolean } = {}): string {
  const out: string[] = [];
  const exclude = readRules(join(rootHost, GIT_EXCLUDE));
  if (exclude)
    out.push(
      ...exclude
        .split("\n")
        .map((l) => rebaseRule(l, ""))
        .filter((l): l is string => l !== undefined),
    );
  const parts = baseRel ? baseRel.split("/") : [];
  for (let i = 0; i < parts.length; i++) {
    const dir = parts.slice(0, i).join("/");
    for (const name of IGNORE_FILES) {
      const text = readRules(join(rootHost, ...parts.slice(0, i), name));
      if (text)
        out.push(
          ...text
            .split("\n")
            .map((l) => rebaseRule(l, dir))
            .filter((l): l is string => l !== undefined),
        );
    }
  }
  if (options.vendor) out.push(`!${VENDOR_DIR}/`);
  return out.join("\n");
}
