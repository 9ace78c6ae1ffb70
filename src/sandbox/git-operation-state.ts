// A rebase, cherry-pick or revert in progress is a plan git carries out at the user's next `--continue`: the `exec`
// lines of its todo run commands on the host, and `--abort` resets the branch to the commit its `orig-head` names (the
// forty-first pass's A41b-2: a script wrote `.git/rebase-merge/` with an exec line; the user's `git rebase --continue`
// ran it outside the sandbox, and `--abort` threw their uncommitted edit away). Checked once, at the end of the chat
// or run, when nothing of the sandbox runs any more (between commands the run's own git may be halfway through a
// rebase it was allowed): one the run started is moved aside; one the user had is moved aside only when the run gave
// it exec lines or another commit to go back to. A merge, cherry-pick or revert the run left half done (MERGE_HEAD,
// …) is said: the user's next `git commit` would record it.
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { moveAsideWithin } from "./repair-within.js";
import { readRegularFile } from "./regular-file.js";

/** The folders of an operation in progress, and what the user would run next. */
const STATES: Record<string, string> = {
  "rebase-merge": "git rebase --continue",
  "rebase-apply": "git rebase --continue (or git am --continue)",
  sequencer: "git cherry-pick --continue (or git revert --continue)",
};
/** The files whose exec lines git runs, and the ones `--abort` resets to, inside those folders. */
const TODOS = ["git-rebase-todo", "todo"];
const ABORT_TO = ["orig-head", "head", "abort-safety"];
const HEADS = ["MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD"];

/** What an operation would do that matters: its exec lines and where an abort goes ("odd": not a plain folder). */
type Plan = { execs: Set<string>; abortTo: string } | "odd";

/** Per git dir noted at the start: its operations then (a missing name: none), and the `*_HEAD` files there. */
const atStart = new Map<string, { plans: Map<string, Plan>; heads: Set<string> }>();

/** A small regular file's text ("" for anything else: a link or a FIFO is never followed or opened to wait). */
function small(path: string): string {
  return readRegularFile(path, 1024 * 1024)?.toString("utf8") ?? "";
}

function planAt(dir: string): Plan | undefined {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (!st) return undefined;
  if (!st.isDirectory()) return "odd";
  const execs = new Set<string>();
  // git takes `x` for `exec`, after any indentation
  for (const t of TODOS) for (const l of small(join(dir, t)).split("\n")) if (/^\s*(?:x|exec)(?:\s|$)/.test(l)) execs.add(l.trim());
  return { execs, abortTo: ABORT_TO.map((f) => small(join(dir, f)).trim()).join("\n") };
}

/** What the git dir has in progress now is the user's (once per run). `empty`: a git dir first seen later: nothing is. */
export function noteOperationStates(gitDir: string, empty = false): void {
  if (atStart.has(gitDir)) return;
  const plans = new Map<string, Plan>();
  const heads = new Set<string>();
  if (!empty) {
    for (const name of Object.keys(STATES)) {
      const p = planAt(join(gitDir, name));
      if (p) plans.set(name, p);
    }
    for (const h of HEADS) if (lstatSync(join(gitDir, h), { throwIfNoEntry: false })) heads.add(h);
  }
  atStart.set(gitDir, { plans, heads });
}

/** The run's additions to `before`: new exec lines or another commit to abort to. */
function grew(before: Plan | undefined, now: Plan): boolean {
  if (!before || before === "odd" || now === "odd") return true;
  return now.abortTo !== before.abortTo || [...now.execs].some((e) => !before.execs.has(e));
}

/** The branch a rebase was on, when its state names one plainly. */
function branchOf(dir: string): string | undefined {
  const name = small(join(dir, "head-name")).trim();
  return /^refs\/heads\/[\w./-]{1,200}$/.test(name) ? name.slice("refs/heads/".length) : undefined;
}

/** The end of the run: moves aside what the run planned, says what it left half done; the lines. */
export function checkOperationStates(roots: readonly string[]): string[] {
  const lines: string[] = [];
  for (const [gitDir, start] of atStart) {
    for (const [name, next] of Object.entries(STATES)) {
      const dir = join(gitDir, name);
      const now = planAt(dir);
      if (!now || !grew(start.plans.get(name), now)) continue;
      const branch = now === "odd" ? undefined : branchOf(dir);
      const why = `your ${next} would run the commands it holds on your host, and an --abort would reset to a commit the run chose`;
      try {
        const aside = moveAsideWithin(dir, roots);
        const back = branch ? ` Your branch ${branch} is as it was; if HEAD is detached, git switch ${branch}.` : "";
        lines.push(`deerflow moved ${dir} to ${aside}: the run ${start.plans.has(name) ? "changed the operation in progress there" : "left an operation in progress there"}, and ${why}.${back}`);
      } catch (err) {
        lines.push(`deerflow could not move ${dir} aside (${(err as Error).message}): ${why}; remove it before you run git there.`);
      }
    }
    for (const h of HEADS) {
      const file = join(gitDir, h);
      if (start.heads.has(h) || !lstatSync(file, { throwIfNoEntry: false })) continue;
      const commit = small(file).trim().slice(0, 40);
      lines.push(
        `the run left ${file} (${/^[0-9a-f]+$/i.test(commit) ? commit : "not a commit id"}): your next git commit there would record a merge, cherry-pick or revert of it; check git status before you commit.`,
      );
    }
  }
  return lines;
}

/** The end of a chat or run: forget. */
export function forgetOperationStates(): void {
  atStart.clear();
}
