// The command audit's git rules (shell-audit.ts holds the table they join): history and remote work destroyed,
// code run through configuration, and the sub-commands that rewrite working-tree files (edits).
//
// Decided:
// - Code through config: `git -c <key>=…`, `--config-env`, and `git config` writes of a key that runs a program
//   (aliases, pager, editor, sshCommand, hooksPath, fsmonitor, filters, helpers, *.command …) ask; a `-c` shell alias
//   (`alias.x=!cmd`) is also judged as the command line it is, so `git -c alias.x='!rm -rf ~' x` is blocked like
//   `rm -rf ~`. Any `git config --global/--system/--file` write asks (it outlives the workspace).
// - Destroying committed or remote work asks: branch -D/-M/-f, reflog expire/delete, gc --prune, prune, repack -d,
//   update-ref, symbolic-ref -d or a new target, tag -d/-f, replace, reset to another commit (even --soft: the later commits survive only
//   in the reflog), filter-branch/filter-repo, worktree remove --force, push that deletes or replaces
//   remote refs (--delete, :ref, --mirror, --prune, --force*, +ref), `git rm -r`/`-f`.
// - `commit --amend` and `rebase` ask: they replace commits that may already be pushed (a force push follows), and
//   the originals survive only in the reflog. `rebase --continue/--abort/--skip/--quit` are edits.
// - Discarding uncommitted work asks, by effect: the porcelain (checkout of paths, restore, reset --hard, switch -f,
//   stash drop/clear, clean) and the plumbing that writes the work tree over what is there (checkout-index -f,
//   read-tree -u, sparse-checkout set/add/reapply/init/disable, submodule update/deinit --force).
// - Edits (ask mode asks): checkout of a branch, switch, merge, pull, cherry-pick, revert, stash (push, pop, apply),
//   rm, mv, reset --keep/--merge, worktree add/move/remove, checkout-index, merge-file, submodule update/add, bisect
//   (it checks out commits), clone, init. `checkout -b` stays allowed: nothing is written.
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { type SimpleCommand, isFlag } from "./shell-command.js";
import { gitSubOptionUnlisted } from "./read-only-options.js";
import { longOption } from "./option-table.js";
import { GIT_CODE_KEY, isGitCodeKey } from "../vocabulary/code-settings.js";

type GitRule = { verdict: "ask" | "edit"; reason: string; test: (c: SimpleCommand) => boolean };

/** Global options before the sub-command that take a separate value. */
const VALUED = /^(?:-C|-c|--git-dir|--work-tree|--namespace|--config-env|--super-prefix)$/;

/** `git [-C dir] [-c k=v] <sub> …` → [sub, …rest]. */
export function gitArgs(c: SimpleCommand): string[] {
  const a = c.args;
  let k = 0;
  while (k < a.length && isFlag(a[k]!)) k += VALUED.test(a[k]!) ? 2 : 1;
  return a.slice(k);
}
/** The global options (before the sub-command). */
function gitGlobals(c: SimpleCommand): string[] {
  return c.args.slice(0, c.args.length - gitArgs(c).length);
}
/** `-c key=value` settings (and `--config-env key=VAR`, value unknown). */
function gitSettings(c: SimpleCommand): { key: string; value?: string }[] {
  const g = gitGlobals(c);
  const out: { key: string; value?: string }[] = [];
  g.forEach((a, i) => {
    const v = a === "-c" || a === "--config-env" ? g[i + 1] : /^--config-env=/.test(a) ? a.slice(13) : undefined;
    if (v === undefined) return;
    const eq = v.indexOf("=");
    out.push({ key: (eq < 0 ? v : v.slice(0, eq)).toLowerCase(), value: a === "-c" && eq >= 0 ? v.slice(eq + 1) : undefined });
  });
  return out;
}

// The code-running git keys live in the vocabulary (code-settings.ts), where the memory reads them too.
export { isGitCodeKey };

/** Shell code in `-c alias.<name>=!<code>` (git runs it with sh). */
export function gitShellAliases(c: SimpleCommand): string[] {
  if (c.name !== "git") return [];
  return gitSettings(c).flatMap((s) => (s.key.startsWith("alias.") && s.value?.startsWith("!") ? [s.value.slice(1)] : []));
}

/** `git config …`: the key it writes, or undefined for a read (get, list, --get*, -l, --show-*). */
function configWrite(rest: string[]): { key: string; scope: boolean } | undefined {
  const VALUE_OPTS = /^(?:-f|--file|--blob|--type|--default|--comment|--value)$/;
  const words: string[] = [];
  const flags: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (isFlag(a)) {
      flags.push(a);
      if (VALUE_OPTS.test(a)) flags.push(rest[++i] ?? "");
    } else words.push(a);
  }
  if (flags.some((f) => /^(?:--get\S*|-l|--list|--show-\S+|--get-color\S*|--get-colorbool)$/.test(f))) return undefined;
  const verb = /^(?:get|list|set|unset|rename-section|remove-section|edit)$/.test(words[0] ?? "") ? words.shift() : undefined;
  if (verb === "get" || verb === "list") return undefined;
  const edit = verb === "edit" || flags.some((f) => f === "-e" || f === "--edit");
  const writes = edit || verb !== undefined || words.length >= 2 || flags.some((f) => /^--(?:add|replace-all|unset\S*|rename-section|remove-section)$/.test(f));
  if (!writes) return undefined;
  // An edit opens the whole file in an editor: any key can be set.
  return { key: edit ? "" : (words[0] ?? "").toLowerCase(), scope: flags.some((f) => /^(?:--global|--system|-f|--file)$/.test(f)) };
}

/** The long options the rules below name (and a few near them), for reading a prefix git would take as one. */
const RULE_LONG_OPTIONS = (
  "abort amend cached conflict continue convert-graft-file deepen delete depth discard-changes dry-run edit exec extcmd force " +
  "force-create force-remove force-with-lease graft hard keep merge mirror mixed orphan ours prune prune-tags quit receive-pack " +
  "reverse separate-git-dir shallow-exclude shallow-since show-current-patch skip soft staged stdout template theirs " +
  "update-shallow upload-pack worktree"
).split(" ");

/**
 * A long option as every rule option it may abbreviate: git takes any unambiguous prefix (`--abo`, `--rev`,
 * `--dele`, `--forc`), and the rules name options whole, so `git push --dele x` passed as no delete (the twenty-ninth
 * pass's A29a-2). An exact name stays itself; a prefix of several stands for each (more asks, never fewer).
 */
function expandLong(arg: string): string[] {
  const m = /^--([a-z][\w-]*)(=[\s\S]*)?$/.exec(arg);
  if (!m || m[1]!.length < 2 || RULE_LONG_OPTIONS.includes(m[1]!)) return [arg];
  const whole = RULE_LONG_OPTIONS.filter((o) => o.startsWith(m[1]!));
  return whole.length === 0 ? [arg] : whole.map((o) => `--${o}${m[2] ?? ""}`);
}

const sub = (c: SimpleCommand) => gitArgs(c)[0] ?? "";
/** Keys that make every later fetch prune (`fetch.prune`, `remote.<name>.pruneTags`; lower-cased). */
const PRUNE_KEY = /^(?:fetch|remote\..+)\.prune(?:tags)?$/;
const rest = (c: SimpleCommand) => gitArgs(c).slice(1).flatMap(expandLong);
const has = (c: SimpleCommand, re: RegExp) => rest(c).some((a) => re.test(a));
const WRITES = "writes files (ask mode asks before edits)";

export const CHECKOUT_PATHS_REASON = "git checkout of paths discards uncommitted changes";

const git = (re: RegExp, test: (rest: string[]) => boolean) => (c: SimpleCommand) => re.test(sub(c)) && test(rest(c));
const operands = (r: string[]) => r.filter((a) => !isFlag(a));

/** `git reset [--soft|--mixed] <commit>`: a revision other than HEAD before `--` (a path there only unstages). */
function movesBranch(r: string[]): boolean {
  const end = r.indexOf("--");
  const before = operands(end < 0 ? r : r.slice(0, end)).filter((a) => a !== "HEAD" && a !== "@");
  if (r.some((a) => /^--(?:soft|mixed)$/.test(a))) return before.length > 0;
  return before.some((a) => /[~^]|@\{|^[0-9a-f]{7,40}$|^(?:origin|upstream)\//.test(a));
}

export const GIT_RULES: readonly GitRule[] = [
  // `-O<cmd>` opens the matches in any program, in any cluster (`-1iO…`) or prefix (`--open=…`; `--or` and
  // `--only-matching` are listed): an option off git grep's read list that may be it is the program it names.
  {
    verdict: "ask",
    reason: "git grep -O/--open-files-in-pager runs the program it names",
    test: (c) => sub(c) === "grep" && /^(?:-[^-]*O|--o)/.test(gitSubOptionUnlisted(gitArgs(c)) ?? ""),
  },
  { verdict: "ask", reason: "git reset --hard discards uncommitted changes", test: git(/^reset$/, (r) => r.some((a) => longOption(a, "hard", 2))) },
  // Moving the branch to another commit drops the later ones from it: they survive only in the reflog (A27-4).
  { verdict: "ask", reason: "git reset <commit> moves the branch (later commits survive only in the reflog)", test: git(/^reset$/, movesBranch) },
  // A template directory's hooks and config are copied into the new repository: its hooks run when the user commits there.
  { verdict: "ask", reason: "git init/clone --template copies hooks that run later on your host", test: git(/^(?:init|clone)$/, (r) => r.some((a) => longOption(a, "template", 2))) },
  // A git directory away from its work tree (`sub/.git` is then a file pointing at `gd`): its config is easy to fill
  // under a name nothing guards, and the user's git runs it when it recurses into `sub` (the fifth pass).
  {
    verdict: "ask",
    reason: "git --separate-git-dir puts a repository's config and hooks where nothing guards them",
    test: git(/^(?:init|clone)$/, (r) => r.some((a) => longOption(a, "separate-git-dir", 2))),
  },
  {
    verdict: "ask",
    reason: CHECKOUT_PATHS_REASON,
    // Paths, or what only a path checkout takes (--ours/--theirs/--merge/--conflict, a pathspec file); git takes any
    // unambiguous prefix of a long option (`--forc`).
    test: git(
      /^checkout$/,
      (r) =>
        r.some(
          (a) =>
            a === "--" ||
            a === "." ||
            /^-[\w#]*[fpm][\w#]*$/.test(a) ||
            longOption(a, "force", 1) ||
            ["patch", "ours", "theirs", "merge", "conflict", "pathspec-from-file"].some((o) => longOption(a, o, 2)),
        ) || operands(r).length > 1,
    ),
  },
  {
    verdict: "ask",
    reason: "git switch --discard-changes discards uncommitted changes",
    test: git(/^switch$/, (r) => r.some((a) => /^-[\w#]*f[\w#]*$/.test(a) || longOption(a, "force", 1) || longOption(a, "discard-changes", 2))),
  },
  // The same by effect in git's plumbing (the eighteenth pass, GD1: `git checkout-index -a -f` reverted the user's
  // edits while `git checkout -- .` asked): whatever writes the work tree from the index or a tree over what is there.
  {
    verdict: "ask",
    reason: "git plumbing overwrites or removes work-tree files (checkout-index -f, read-tree -u, sparse-checkout, submodule update/deinit --force): uncommitted changes are lost",
    test: (c) => {
      const r = rest(c);
      const short = (letter: string) => r.some((a) => new RegExp(`^-[a-zA-Z]*${letter}[a-zA-Z]*$`).test(a));
      switch (sub(c)) {
        case "checkout-index":
          return short("f") || r.some((a) => longOption(a, "force", 1));
        case "read-tree":
          return short("u");
        case "sparse-checkout":
          return /^(?:set|add|reapply|init|disable)$/.test(r[0] ?? "");
        case "submodule":
          return /^(?:update|deinit)$/.test(operands(r)[0] ?? "") && (short("f") || r.some((a) => longOption(a, "force", 1)));
        default:
          return false;
      }
    },
  },
  {
    verdict: "ask",
    reason: "git update-index --force-remove drops tracked files from the index (the next commit deletes them)",
    test: git(/^update-index$/, (r) => r.some((a) => longOption(a, "force-remove", 7))),
  },
  {
    verdict: "ask",
    reason: "git restore discards uncommitted changes",
    // `--staged` alone only unstages; with --worktree (-W) or without --staged it overwrites the files.
    test: git(/^restore$/, (r) => !r.some((a) => a === "--staged" || /^-[a-zA-Z]*S[a-zA-Z]*$/.test(a)) || r.some((a) => a === "--worktree" || /^-[a-zA-Z]*W[a-zA-Z]*$/.test(a))),
  },
  { verdict: "ask", reason: "git stash drop/clear deletes stashed work", test: git(/^stash$/, (r) => /^(?:drop|clear)$/.test(r[0] ?? "")) },
  // Any `git clean` but a dry run: a repository's own config may set clean.requireForce=false.
  { verdict: "ask", reason: "git clean deletes untracked files", test: git(/^clean$/, (r) => !r.some((a) => a === "--dry-run" || /^-[a-zA-Z]*n[a-zA-Z]*$/.test(a))) },
  {
    verdict: "ask",
    reason: "git -c sets a key that runs a program (alias, pager, editor, sshCommand, hooksPath, filter, helper …)",
    test: (c) => gitSettings(c).some((s) => GIT_CODE_KEY.test(s.key)),
  },
  // The twenty-fourth pass (A24-1): the program git runs for the other side of a transfer is a command line.
  {
    verdict: "ask",
    reason: "git runs the program an option names (--upload-pack, --receive-pack, --exec, clone -u)",
    test: (c) => c.name === "git" && (has(c, /^--(?:upload-pack|receive-pack|exec)(?:=|$)/) || (sub(c) === "clone" && has(c, /^-u$|^-[a-zA-Z]*u$/))),
  },
  // The sixth pass: `git clone -c core.fsmonitor=… . sub && git add sub` left a nested repository whose config the
  // user's own `git status` in the parent runs; `-c gc.*Expire=now gc` deleted an unmerged branch's commits for good.
  {
    verdict: "ask",
    reason: "git clone --config sets a key that runs a program in the new repository",
    test: git(/^clone$/, (r) =>
      r.some(
        (a, i) =>
          ((a === "-c" || longOption(a, "config", 3)) && GIT_CODE_KEY.test((a.includes("=") && a.startsWith("--") ? a.slice(a.indexOf("=") + 1) : (r[i + 1] ?? "")).split("=")[0]!.toLowerCase())) ||
          (/^-c./.test(a) && GIT_CODE_KEY.test(a.slice(2).split("=")[0]!.toLowerCase())),
      ),
    ),
  },
  { verdict: "ask", reason: "git -c changes when gc deletes unreachable commits (they may be lost at once)", test: (c) => gitSettings(c).some((s) => /^(?:gc|maintenance)\./.test(s.key)) },
  {
    verdict: "ask",
    reason: "a forced fetch into a local branch replaces its commits",
    test: git(/^fetch$/, (r) => r.some((a) => !isFlag(a) && /^\+[^:]*:./.test(a)) || (r.some((a) => /^(?:-f|--force)$/.test(a)) && r.some((a) => !isFlag(a) && /:./.test(a)))),
  },
  // The thirty-eighth pass: a shallow boundary hides the history behind it (gc then prunes it), and a prune deletes the
  // local refs the remote no longer has (with --prune-tags, local tags), as `push --prune` does on the other side.
  {
    verdict: "ask",
    reason: "git fetch --depth/--shallow-since/--shallow-exclude/--deepen moves the repository's shallow boundary (earlier history is hidden, then pruned by gc)",
    test: git(/^(?:fetch|pull)$/, (r) => r.some((a) => /^--(?:depth|deepen|shallow-since|shallow-exclude|update-shallow)(?:=|$)/.test(a))),
  },
  {
    verdict: "ask",
    reason: "git fetch --prune / remote prune deletes local refs (remote-tracking branches; tags with --prune-tags)",
    test: (c) =>
      (/^(?:fetch|pull)$/.test(sub(c)) && has(c, /^--prune(?:-tags)?$|^-[afkmnqtuvr46]*[pP]/)) ||
      (sub(c) === "remote" && (/^(?:prune|remove|rm)$/.test(rest(c)[0] ?? "") || (rest(c)[0] === "update" && has(c, /^--prune$|^-[a-zA-Z]*p/)))) ||
      gitSettings(c).some((s) => PRUNE_KEY.test(s.key) && !/^(?:false|no|off|0)$/i.test(s.value ?? "")) ||
      (sub(c) === "config" && PRUNE_KEY.test(configWrite(rest(c))?.key ?? "") && !rest(c).some((a) => /^(?:false|no|off|0)$/i.test(a))),
  },
  { verdict: "ask", reason: "git --exec-path runs git's sub-commands from another directory", test: (c) => gitGlobals(c).some((a) => /^--exec-path=./.test(a)) },
  {
    verdict: "ask",
    reason: "git config sets a key that runs a program (alias, pager, editor, sshCommand, hooksPath, filter, helper …)",
    test: (c) => sub(c) === "config" && ((w) => w !== undefined && (w.key === "" || GIT_CODE_KEY.test(w.key)))(configWrite(rest(c))),
  },
  { verdict: "ask", reason: "git config writes the user's or the system's configuration (outside the workspace)", test: (c) => sub(c) === "config" && configWrite(rest(c))?.scope === true },
  {
    verdict: "ask",
    reason: "git branch -D/-M/-f deletes or overwrites a branch (its unmerged commits are lost)",
    test: (c) => sub(c) === "branch" && (has(c, /^-[\w#]*[DMCf][\w#]*$|^--force$/) || (has(c, /^--delete$|^-[\w#]*d/) && has(c, /^--force$|^-[\w#]*f/))),
  },
  {
    verdict: "ask",
    reason: "git switch -C resets an existing branch to another commit (its commits are lost)",
    // `checkout -B <branch>` resets a branch the same way (A29a-2).
    test: (c) => (sub(c) === "switch" && has(c, /^-[\w#]*C[\w#]*$|^--force-create(?:=.*)?$/)) || (sub(c) === "checkout" && has(c, /^-[\w#]*B[\w#]*$/)),
  },
  // The twenty-eighth pass (A28-9): an abort puts the files back to before the merge, hand-resolved conflicts lost;
  // a reverse apply undoes changes that may be uncommitted; A28-2/A28-6: stored credentials, the global config.
  {
    verdict: "ask",
    reason: "git merge/rebase/am/cherry-pick/revert --abort and git apply -R put files back (uncommitted changes are lost)",
    test: (c) => (/^(?:merge|rebase|am|cherry-pick|revert)$/.test(sub(c)) && has(c, /^--(?:abort|quit)$/)) || (sub(c) === "apply" && has(c, /^-[\w#]*R[\w#]*$|^--reverse$/)),
  },
  { verdict: "ask", reason: "git credential reads or changes the credentials your git stores", test: (c) => /^credential(?:-store|-cache)?$/.test(sub(c)) },
  {
    verdict: "ask",
    reason: "git maintenance register/start writes your global git config (and start installs a scheduled job)",
    test: (c) => sub(c) === "maintenance" && /^(?:register|unregister|start|stop)$/.test(rest(c)[0] ?? ""),
  },
  { verdict: "ask", reason: "git reflog expire/delete drops the record of earlier commits", test: (c) => sub(c) === "reflog" && /^(?:expire|delete)$/.test(rest(c)[0] ?? "") },
  {
    verdict: "ask",
    reason: "git gc --prune / git prune deletes unreachable commits",
    test: (c) => (sub(c) === "gc" && has(c, /^--prune(?:=(?!never$).*)?$/)) || sub(c) === "prune" || (sub(c) === "repack" && has(c, /^-[\w#]*d/)),
  },
  {
    verdict: "ask",
    reason: "git update-ref/symbolic-ref moves or deletes a ref (commits can be lost)",
    test: (c) => sub(c) === "update-ref" || (sub(c) === "symbolic-ref" && (has(c, /^-[\w#]*d|^--delete$/) || operands(rest(c)).length > 1)),
  },
  { verdict: "ask", reason: "git filter-branch/filter-repo rewrites the whole history", test: (c) => /^filter-(?:branch|repo)$/.test(sub(c)) },
  // A tag keeps no reflog: a deleted or moved one is gone; a replace ref makes every later git command show other
  // content for a commit (A24-4's remainder).
  { verdict: "ask", reason: "git tag -d/-f deletes or moves a tag (tags keep no reflog)", test: git(/^tag$/, (r) => r.some((a) => /^-[a-zA-Z]*[df][a-zA-Z]*$|^--(?:delete|force)$/.test(a))) },
  {
    verdict: "ask",
    reason: "git replace makes git show other content for an object",
    test: git(/^replace$/, (r) => operands(r).length > 0 || r.some((a) => /^(?:-d|--delete|-f|--force|--edit|--graft|--convert-graft-file)$/.test(a))),
  },
  {
    verdict: "ask",
    reason: "git worktree remove --force deletes a worktree with its uncommitted changes",
    test: (c) => sub(c) === "worktree" && rest(c)[0] === "remove" && has(c, /^-[\w#]*f|^--force$/),
  },
  {
    verdict: "ask",
    reason: "git rm -r/-f deletes tracked files (recursively or with their changes)",
    test: (c) => sub(c) === "rm" && !has(c, /^--cached$/) && has(c, /^-[\w#]*[rf][\w#]*$|^--force$/),
  },
  {
    verdict: "ask",
    reason: "git difftool -x / bisect run runs a command given on its command line",
    test: (c) => (sub(c) === "difftool" && has(c, /^(?:-x|--extcmd)(?:=.*)?$|^-x./)) || (sub(c) === "bisect" && rest(c)[0] === "run"),
  },
  { verdict: "ask", reason: "git mv -f overwrites the file it moves onto (its uncommitted changes are lost)", test: (c) => sub(c) === "mv" && has(c, /^-[\w#]*f|^--force$/) },
  { verdict: "ask", reason: "git commit --amend replaces the last commit (it may already be pushed)", test: (c) => sub(c) === "commit" && has(c, /^--amend$/) },
  {
    verdict: "ask",
    reason: "git rebase rewrites the branch's commits (the originals survive only in the reflog)",
    test: (c) => sub(c) === "rebase" && !has(c, /^--(?:continue|abort|skip|quit|show-current-patch)$/),
  },
  {
    verdict: "ask",
    reason: "git push that deletes or replaces remote work (--delete, :ref, --mirror, --prune, --force, +ref)",
    test: (c) => sub(c) === "push" && (has(c, /^(?:--delete|--mirror|--prune|--force\S*|-[\w#]*[df][\w#]*)$/) || rest(c).some((a) => !isFlag(a) && /^[+:]/.test(a))),
  },
  // --- edits
  { verdict: "edit", reason: WRITES, test: git(/^(?:apply|am)$/, (r) => !r.some((a) => /^--(?:check|stat|numstat|summary)$/.test(a))) },
  { verdict: "edit", reason: WRITES, test: (c) => /^(?:switch|merge|pull|cherry-pick|revert|rm|mv|rebase)$/.test(sub(c)) },
  { verdict: "edit", reason: WRITES, test: (c) => sub(c) === "checkout" && !has(c, /^-[bB]$|^--orphan$/) },
  { verdict: "edit", reason: WRITES, test: (c) => sub(c) === "stash" && /^(?:pop|apply|branch)$/.test(rest(c)[0] ?? "") },
  // `git stash` (push, save, or options only) puts the work tree back to HEAD: the changes are kept in the stash.
  { verdict: "edit", reason: WRITES, test: (c) => sub(c) === "stash" && (rest(c).length === 0 || /^(?:push|save|-.*)$/.test(rest(c)[0] ?? "")) },
  // Plumbing that writes work-tree files without overwriting (or merges into one): checkout-index, read-tree,
  // merge-file (not -p), submodule update/deinit.
  { verdict: "edit", reason: WRITES, test: (c) => sub(c) === "checkout-index" || (sub(c) === "merge-file" && !has(c, /^(?:-p|--stdout)$/)) },
  { verdict: "edit", reason: WRITES, test: (c) => sub(c) === "submodule" && /^(?:update|deinit)$/.test(operands(rest(c))[0] ?? "") },
  { verdict: "edit", reason: WRITES, test: (c) => sub(c) === "reset" && has(c, /^--(?:keep|merge)$/) },
  { verdict: "edit", reason: WRITES, test: (c) => sub(c) === "worktree" && /^(?:remove|add|move)$/.test(rest(c)[0] ?? "") },
  // The twenty-third pass (A23-1): bisect checks out other commits; clone, init and submodule add make a repository
  // (and its files) in the work tree.
  { verdict: "edit", reason: WRITES, test: (c) => sub(c) === "bisect" && /^(?:start|good|bad|new|old|skip|reset|replay)$/.test(rest(c)[0] ?? "") },
  { verdict: "edit", reason: WRITES, test: (c) => /^(?:clone|init)$/.test(sub(c)) || (sub(c) === "submodule" && operands(rest(c))[0] === "add") },
];

/**
 * `git checkout <name>` with one operand restores a file when <name> is a path (`git checkout main.c`), and switches
 * branches otherwise: only the work tree tells. A path that exists where the command runs (or a command run where the
 * audit cannot follow it, or through -C / --work-tree) counts as a path checkout. Without a workspace, nothing is known.
 */
export function checksOutExistingPath(c: SimpleCommand, workspace: string | undefined): boolean {
  if (c.name !== "git" || sub(c) !== "checkout" || !workspace) return false;
  const r = rest(c);
  if (has(c, /^-[\w#]*[bB]$|^--(?:orphan|detach)$/)) return false;
  const [name, ...more] = operands(r);
  if (name === undefined || more.length > 0 || name === "-" || /^@\{/.test(name)) return false;
  if (c.cwd.at !== "workspace" || gitGlobals(c).some((a) => /^(?:-C|--work-tree|--git-dir)(?:=|$)/.test(a))) return true;
  // lstat: a link counts as the path it is (git restores the link itself), dangling or not.
  return lstatSync(join(workspace, c.cwd.rel ?? "", name), { throwIfNoEntry: false }) !== undefined;
}
