// The options a read-only program may be given on a line plan mode runs (read-only-line.ts) and ask mode runs without
// an edit prompt (shell-read-only.ts `readsOnly`): an allow list per program, as unconfined-options.ts is without a
// sandbox. WHY an allow list: the fifteenth and sixteenth passes slipped a write or a program past a list of dangerous options by spelling
// (`less --Lesskey-src=…`, `git grep -1O<cmd>`, `tree -R`, `ag --pager`). Inside bubblewrap reading anything is
// bounded by the sandbox, so this table adds to the unconfined one what only reads more (following links, a pattern
// file) and the programs that never run unasked without a sandbox (git, less, more, ag); it never lists an option that
// writes a file or runs a program. An option not on it, in any spelling, makes the command not read-only.
import type { SimpleCommand } from "./shell-command.js";
import { type Options, unlistedIn } from "./option-table.js";
import { FIND, OPTIONS, unlistedFindOption } from "./unconfined-options.js";

const widen = (o: Options, more: Partial<Options>): Options => ({
  ...o,
  ...more,
  flags: o.flags + (more.flags ?? ""),
  valued: (o.valued ?? "") + (more.valued ?? ""),
  long: [...(o.long ?? []), ...(more.long ?? [])],
  longValued: [...(o.longValued ?? []), ...(more.longValued ?? [])],
});

const GREP = widen(OPTIONS.grep!, { flags: "R", valued: "f", digits: true, long: ["dereference-recursive"], longValued: ["file", "exclude-from"] });

// biome-ignore format: a table reads best one program per line
const AG: Options = {
  flags: "acDFfHhiLlnoQRrSstuUvwz0",
  valued: "ABCGgmpW",
  long: ["count", "color", "nocolor", "column", "filename", "nofilename", "heading", "noheading", "break", "nobreak", "group", "nogroup", "files-with-matches", "files-without-matches", "print-all-files", "numbers", "nonumbers", "only-matching", "print-long-lines", "passthrough", "silent", "stats", "stats-only", "vimgrep", "null", "print0", "all-types", "follow", "fixed-strings", "hidden", "ignore-case", "one-device", "literal", "case-sensitive", "smart-case", "search-binary", "all-text", "unrestricted", "skip-vcs-ignores", "invert-match", "word-regexp", "search-zip", "list-file-types", "js", "ts", "python", "ruby", "go", "rust", "java", "cc", "cpp", "html", "css", "json", "yaml", "markdown", "shell", "php", "sql", "vue", "kotlin", "swift", "csharp", "make", "cmake"],
  longValued: ["after", "before", "context", "file-search-regex", "filename-pattern", "max-count", "depth", "ignore", "ignore-dir", "path-to-ignore", "width", "color-line-number", "color-match", "color-path"],
};

// less reads a number up to its first non-digit and goes on with the cluster (`-x4k<file>` is `-x4 -k<file>`), so
// its values are numbers only; `-k`/`--lesskey*` (a lesskey file's `#env` runs LESSOPEN), `-o`/`-O`/`--log-file`
// and `+cmd` are absent.
// biome-ignore format: a table
const LESS: Options = {
  flags: "aAcCdeEfFgGiIJKLmMnNqQrRsSuUVwWX~",
  valued: "bhjxyz#",
  long: ["line-numbers", "LINE-NUMBERS", "chop-long-lines", "raw-control-chars", "RAW-CONTROL-CHARS", "quit-if-one-screen", "no-init", "ignore-case", "IGNORE-CASE", "squeeze-blank-lines", "quit-at-eof", "QUIT-AT-EOF", "quiet", "QUIET", "silent", "SILENT", "long-prompt", "LONG-PROMPT", "force", "hilite-search", "HILITE-SEARCH", "status-column", "no-lessopen", "mouse", "version", "help"],
  longValued: ["tabs", "jump-target", "window", "shift", "buffers", "max-back-scroll", "max-forw-scroll"],
  value: /^[\d.,]+$/,
  plus: true,
};

const MORE: Options = { flags: "dflcpsue", valued: "n", numeric: true, value: /^\d+$/, plus: true };

// git: the options each read sub-command may take. No `--output`, `--ext-diff`, `--textconv`, `-O`/`--open-files-in-pager`,
// `--recurse-submodules` (enters nested repositories whose config the gate never read).
// biome-ignore format: a table
const DIFF_LONG = ["stat", "shortstat", "numstat", "dirstat", "summary", "name-only", "name-status", "patch", "no-patch", "raw", "patch-with-stat", "color", "no-color", "color-words", "word-diff", "ignore-all-space", "ignore-space-change", "ignore-space-at-eol", "ignore-blank-lines", "ignore-cr-at-eol", "minimal", "patience", "histogram", "no-renames", "find-renames", "find-copies", "full-index", "binary", "abbrev", "no-ext-diff", "no-textconv", "text", "exit-code", "quiet", "check", "compact-summary", "cached", "staged", "merge-base", "no-index", "relative", "no-relative", "function-context", "ita-invisible-in-index", "no-prefix"];
// biome-ignore format: a table
const DIFF_VALUED = ["unified", "stat", "color", "word-diff", "diff-filter", "diff-algorithm", "relative", "abbrev", "src-prefix", "dst-prefix", "line-prefix", "inter-hunk-context", "find-renames", "find-copies", "dirstat", "anchored", "color-moved", "word-diff-regex", "ignore-submodules"];
// biome-ignore format: a table
const LOG_LONG = ["oneline", "graph", "decorate", "no-decorate", "all", "branches", "tags", "remotes", "reverse", "abbrev-commit", "no-abbrev-commit", "no-merges", "merges", "first-parent", "follow", "full-history", "simplify-by-decoration", "source", "left-right", "cherry-pick", "cherry-mark", "cherry", "boundary", "date-order", "author-date-order", "topo-order", "walk-reflogs", "all-match", "invert-grep", "regexp-ignore-case", "extended-regexp", "fixed-strings", "perl-regexp", "pickaxe-all", "pickaxe-regex", "show-signature", "use-mailmap", "count", "objects", "no-walk", "parents", "children", "show-pulls", "no-notes", "mailmap", "full-diff", "log-size", "dense", "sparse", "ancestry-path"];
// biome-ignore format: a table
const LOG_VALUED = ["format", "pretty", "max-count", "skip", "since", "until", "after", "before", "author", "committer", "grep", "date", "decorate", "max-parents", "min-parents", "since-as-filter", "no-walk", "encoding", "abbrev"];
const LOG: Options = { flags: "pumswtzMCRDB", valued: "nUSGLl", numeric: true, digits: true, long: [...DIFF_LONG, ...LOG_LONG], longValued: [...DIFF_VALUED, ...LOG_VALUED] };

// biome-ignore format: a table
const GIT_GREP: Options = {
  flags: "iIwvlLchHnEFGPzoWpaqr",
  valued: "eABCmf",
  digits: true,
  long: ["cached", "untracked", "no-index", "no-exclude-standard", "exclude-standard", "text", "ignore-case", "word-regexp", "invert-match", "files-with-matches", "name-only", "files-without-match", "count", "full-name", "line-number", "column", "extended-regexp", "basic-regexp", "fixed-strings", "perl-regexp", "null", "only-matching", "heading", "break", "show-function", "function-context", "all-match", "and", "or", "not", "quiet", "color", "no-color", "recursive", "no-recursive"],
  longValued: ["max-depth", "after-context", "before-context", "context", "max-count", "threads", "color", "file"],
};

// biome-ignore format: a table reads best one sub-command per line
const GIT: Record<string, Options> = {
  log: LOG,
  show: LOG,
  shortlog: { ...LOG, flags: `${LOG.flags}ne`, long: [...LOG.long!, "summary", "numbered", "email", "committer"], longValued: [...LOG.longValued!, "group"] },
  "rev-list": LOG,
  diff: { flags: "pumswtzMCRDBab", valued: "USGl", long: DIFF_LONG, longValued: DIFF_VALUED, numeric: true },
  status: { flags: "sbvuz", valued: "", long: ["short", "branch", "porcelain", "long", "verbose", "ignored", "ahead-behind", "no-ahead-behind", "renames", "no-renames", "show-stash", "null", "column", "no-column", "untracked-files"], longValued: ["porcelain", "untracked-files", "ignored", "ignore-submodules", "find-renames", "column"] },
  blame: { flags: "bcfnpstwelMC", valued: "LS", long: ["root", "show-stats", "porcelain", "line-porcelain", "incremental", "show-name", "show-number", "show-email", "abbrev"], longValued: ["date", "abbrev", "contents", "reverse", "ignore-rev", "ignore-revs-file"], digits: true },
  "ls-files": { flags: "cdmoiskuvftz", valued: "xX", long: ["cached", "deleted", "modified", "others", "ignored", "stage", "directory", "no-empty-directory", "unmerged", "killed", "exclude-standard", "error-unmatch", "full-name", "eol", "deduplicate", "sparse", "debug", "abbrev", "resolve-undo"], longValued: ["exclude", "exclude-from", "exclude-per-directory", "with-tree", "format", "abbrev"] },
  "ls-tree": { flags: "rdtlz", long: ["long", "name-only", "name-status", "object-only", "full-name", "full-tree", "abbrev"], longValued: ["abbrev", "format"] },
  "rev-parse": { flags: "q", long: ["show-toplevel", "show-prefix", "show-cdup", "git-dir", "absolute-git-dir", "git-common-dir", "is-inside-work-tree", "is-inside-git-dir", "is-bare-repository", "is-shallow-repository", "verify", "quiet", "short", "symbolic", "symbolic-full-name", "abbrev-ref", "all", "branches", "tags", "remotes", "show-superproject-working-tree", "local-env-vars", "sq", "not", "revs-only", "no-revs", "flags", "no-flags"], longValued: ["short", "abbrev-ref", "default", "since", "until", "after", "before", "path-format", "show-object-format", "git-path"] },
  grep: GIT_GREP,
  describe: { flags: "", long: ["tags", "all", "always", "long", "contains", "exact-match", "first-parent", "debug"], longValued: ["abbrev", "match", "exclude", "candidates", "dirty", "broken"] },
  "cat-file": { flags: "tspe", long: ["batch", "batch-check", "batch-all-objects", "buffer", "unordered", "follow-symlinks", "allow-unknown-type", "use-mailmap", "no-use-mailmap"], longValued: ["batch", "batch-check"] },
};

/** git's global options allowed before a read sub-command (no `-c`/`--config-env`: a setting may name a program).
 *  Where they point git (`-C`, `--git-dir`) plan mode judges apart (read-only-line.ts). */
const GIT_GLOBAL: Options = {
  flags: "P",
  valued: "C",
  long: ["no-pager", "no-optional-locks", "literal-pathspecs", "no-replace-objects", "bare"],
  longValued: ["git-dir", "work-tree", "namespace"],
};

// biome-ignore format: a table
const READER: Record<string, Options> = {
  ...OPTIONS,
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  ls: widen(OPTIONS.ls!, { flags: "LH", long: ["dereference", "dereference-command-line"] }),
  tree: widen(OPTIONS.tree!, { flags: "l", long: ["gitignore"] }),
  rg: widen(OPTIONS.rg!, { flags: "L", valued: "f", long: ["follow"], longValued: ["file", "ignore-file"] }),
  du: widen(OPTIONS.du!, { flags: "LDH", long: ["dereference", "dereference-args"] }),
  file: widen(OPTIONS.file!, { flags: "L", valued: "mf", long: ["dereference"], longValued: ["magic-file", "files-from"] }),
  // `--arg name value`: the table knows one value; a value that starts with `-` is then read as an option (refused).
  jq: widen(OPTIONS.jq!, { longValued: ["arg", "argjson"] }),
  ag: AG,
  less: LESS,
  more: MORE,
};

const FIND_READS: Record<string, number> = { ...FIND, "-L": 0, "-H": 0, "-follow": 0 };

/** The first argument of `c` that is not on its program's allow list (or a git global option or sub-command that is
 *  not one of git's reads), or undefined when every option is listed. */
export function readerOptionUnlisted(c: SimpleCommand, gitSub: readonly string[] | undefined): string | undefined {
  if (/^(?:echo|test|\[|\[\[)$/.test(c.name) || c.name === "") return undefined;
  if (c.name === "printf") return c.args[0]?.startsWith("-") && c.args[0] !== "--" ? c.args[0] : undefined;
  if (c.name === "find") return unlistedFindOption(c.args, FIND_READS);
  if (c.name === "git") {
    const globals = c.args.slice(0, c.args.length - (gitSub?.length ?? 0));
    return unlistedIn(globals, GIT_GLOBAL) ?? gitSubOptionUnlisted(gitSub ?? []);
  }
  const o = READER[c.name];
  if (!o) return c.args.find((a) => a.startsWith("-") && a !== "-") ?? undefined;
  return unlistedIn(c.args, o);
}

/** The first of a git read sub-command's arguments (`[sub, …rest]`) off its allow list, or the sub-command itself when
 *  it is not a read. */
export function gitSubOptionUnlisted([sub, ...rest]: readonly string[]): string | undefined {
  const table = sub === undefined ? undefined : GIT[sub];
  return table ? unlistedIn(rest, table) : (sub ?? "(no sub-command)");
}
