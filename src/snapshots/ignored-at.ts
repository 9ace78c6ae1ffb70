// Which paths a snapshot's own ignore rules ignore, judged in a scratch tree holding only that snapshot's .gitignore
// files, never in the work tree. The run being undone may have turned a .gitignore into a folder (or anything that is
// not the file): judged in the work tree, the run's rules then decided, and the user's ignored `.env`, recorded by
// the end-of-run snapshot because nothing ignored it any more, was deleted by the rewind (the fortieth pass's A40b-1).
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { nulList } from "./git.js";

/** Runs git against the thread's shadow repository with `workTree` as its work tree. */
export type GitIn = (workTree: string, args: string[], opts?: { input?: string; allowFail?: boolean; env?: Record<string, string> }) => Promise<{ stdout: string; exitCode: number }>;

const isIgnoreFile = (p: string) => p === ".gitignore" || p.endsWith("/.gitignore");

/** Of `paths`, those that `commit`'s .gitignore files (and the repository's info/exclude) ignore. */
export async function ignoredAt(gitIn: GitIn, gitDir: string, commit: string, paths: readonly string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  const scratch = mkdtempSync(join(gitDir, "ignore-rules-"));
  const index = { GIT_INDEX_FILE: `${scratch}.index` };
  try {
    // Regular files only: git does not follow a .gitignore that is a symlink either.
    const rules = nulList((await gitIn(scratch, ["ls-tree", "-r", "-z", "--full-tree", commit])).stdout).filter((e) => /^1006[0-9]{2} blob /.test(e) && isIgnoreFile(e.slice(e.indexOf("\t") + 1)));
    if (rules.length > 0) {
      // A throw-away index holding just the rule files (--index-info takes ls-tree's lines), written out into the scratch tree.
      await gitIn(scratch, ["update-index", "-z", "--index-info"], { input: `${rules.join("\0")}\0`, env: index });
      await gitIn(scratch, ["checkout-index", "--all", "--force"], { env: index });
    }
    // check-ignore refuses literal pathspecs; "./" keeps a name starting with ":" from reading as pathspec magic (and
    // it is echoed back as given).
    const r = await gitIn(scratch, ["check-ignore", "--no-index", "-z", "--stdin"], {
      input: `${paths.map((p) => `./${p}`).join("\0")}\0`,
      allowFail: true,
      env: { ...index, GIT_LITERAL_PATHSPECS: "0" },
    });
    // Exit 1: none is ignored; anything else is a failure, and deleting blind is not an option.
    if (r.exitCode > 1) throw new Error("git check-ignore failed");
    return nulList(r.stdout).map((p) => p.replace(/^\.\//, ""));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(index.GIT_INDEX_FILE, { force: true });
  }
}
