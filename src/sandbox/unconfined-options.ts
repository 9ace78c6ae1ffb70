// The options a read-only program may be given when it runs unasked without a sandbox: an allow list per program.
// WHY an allow list: four adversarial passes got around a list of dangerous options by spelling — GNU long-option
// abbreviations (`--rec`, `--deref`), a short option's value attached (`file -m../.aws/credentials`, `grep -faws/x`),
// options that read a named file (`jq --rawfile`, `du --files0-from`, `md5sum -c`) or follow links out of the
// workspace (`-L`, `-R`). Here an option the table does not name, spelled exactly, asks; an option that takes a value
// is listed only when its value is never a file (a count, a pattern, a format). Operands are judged as paths by the
// caller (shell-unconfined.ts, unconfined-paths.ts). Inside bubblewrap none of this applies: the sandbox bounds what
// any option can do.
import type { SimpleCommand } from "./shell-command.js";
import { type Options, unlistedIn } from "./option-table.js";

// biome-ignore format: a table reads best one program per line
const GREP: Options = {
  flags: "EFGPiyvwxclLoqsbHhnTZzraIU",
  valued: "ABCdDem",
  long: ["extended-regexp", "fixed-strings", "basic-regexp", "perl-regexp", "ignore-case", "no-ignore-case", "invert-match", "word-regexp", "line-regexp", "count", "color", "colour", "files-without-match", "files-with-matches", "only-matching", "quiet", "silent", "no-messages", "byte-offset", "with-filename", "no-filename", "line-number", "initial-tab", "null", "null-data", "text", "recursive", "line-buffered"],
  longValued: ["regexp", "max-count", "after-context", "before-context", "context", "color", "colour", "label", "binary-files", "devices", "directories", "exclude", "exclude-dir", "include"],
};

const SUMS: Options = { flags: "btz", long: ["binary", "text", "zero", "tag"], longValued: ["length"], valued: "l" };

// biome-ignore format: a table reads best one program per line
export const OPTIONS: Record<string, Options> = {
  cat: { flags: "AbeEnstTuv", long: ["show-all", "number-nonblank", "show-ends", "number", "squeeze-blank", "show-tabs", "show-nonprinting"] },
  tac: { flags: "br", valued: "s", long: ["before", "regex"], longValued: ["separator"] },
  head: { flags: "qvz", valued: "nc", long: ["quiet", "silent", "verbose", "zero-terminated"], longValued: ["lines", "bytes"], numeric: true },
  tail: { flags: "fFqvz", valued: "ncs", long: ["follow", "retry", "quiet", "silent", "verbose", "zero-terminated"], longValued: ["lines", "bytes", "follow", "sleep-interval"], numeric: true },
  ls: {
    flags: "aAbBcCdfFgGhiklmnNopqQrRsStuUvxXZ1",
    valued: "wIT",
    long: ["all", "almost-all", "escape", "ignore-backups", "directory", "classify", "file-type", "no-group", "human-readable", "si", "inode", "numeric-uid-gid", "literal", "reverse", "recursive", "size", "group-directories-first", "full-time", "hide-control-chars", "show-control-chars", "quote-name", "context", "zero"],
    longValued: ["color", "block-size", "format", "hide", "ignore", "indicator-style", "quoting-style", "sort", "time", "time-style", "width", "tabsize", "hyperlink"],
  },
  tree: {
    flags: "adfFxpugsDhrtvUCnAQNSiJ",
    valued: "LPIT",
    separateValues: true,
    long: ["noreport", "dirsfirst", "du", "prune", "matchdirs", "ignore-case", "si", "inodes", "device"],
    longValued: ["charset", "filelimit", "sort", "timefmt"],
  },
  stat: { flags: "ft", valued: "c", long: ["file-system", "terse"], longValued: ["format", "printf", "cached"] },
  // No -z/-Z: file runs decompressors (lz4, zstd, …) found on PATH (the eleventh pass).
  file: {
    flags: "bhiknNrs0",
    valued: "eF",
    long: ["brief", "mime", "mime-type", "mime-encoding", "keep-going", "no-pad", "no-buffer", "extension", "apple", "raw", "special-files", "no-dereference", "print0", "preserve-date"],
    longValued: ["separator", "exclude", "exclude-quiet"],
  },
  wc: { flags: "cmlLw", long: ["bytes", "chars", "lines", "max-line-length", "words"], longValued: ["total"] },
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  diff: {
    flags: "iEZbwBtTaruNpqsycdP", // no -l: --paginate pipes through `pr` found on PATH
    valued: "UCWxIF",
    long: ["brief", "report-identical-files", "normal", "side-by-side", "ignore-case", "ignore-all-space", "ignore-space-change", "ignore-blank-lines", "ignore-tab-expansion", "ignore-trailing-space", "strip-trailing-cr", "text", "recursive", "new-file", "unidirectional-new-file", "suppress-common-lines", "left-column", "minimal", "speed-large-files", "show-c-function", "expand-tabs", "initial-tab", "no-ignore-file-name-case", "ignore-file-name-case", "suppress-blank-empty"],
    longValued: ["context", "unified", "width", "exclude", "color", "show-function-line", "label", "tabsize", "ignore-matching-lines", "line-format", "old-line-format", "new-line-format", "unchanged-line-format", "palette", "horizon-lines"],
  },
  cmp: { flags: "bls", valued: "in", long: ["print-bytes", "verbose", "quiet", "silent"], longValued: ["ignore-initial", "bytes"] },
  du: {
    flags: "0abchklmsSx",
    valued: "dBt",
    long: ["null", "all", "apparent-size", "bytes", "total", "human-readable", "si", "summarize", "one-file-system", "inodes", "count-links", "separate-dirs", "no-dereference"],
    longValued: ["block-size", "max-depth", "exclude", "threshold", "time", "time-style"],
  },
  df: {
    flags: "ahHiklPTx",
    valued: "tBx",
    long: ["all", "human-readable", "si", "inodes", "local", "portability", "print-type", "total", "no-sync", "sync"],
    longValued: ["output", "block-size", "type", "exclude-type"],
  },
  realpath: { flags: "emqszPL", long: ["canonicalize-existing", "canonicalize-missing", "logical", "physical", "quiet", "strip", "no-symlinks", "zero"], longValued: ["relative-to", "relative-base"] },
  readlink: { flags: "fenmqsvz", long: ["canonicalize", "canonicalize-existing", "canonicalize-missing", "no-newline", "quiet", "silent", "verbose", "zero"] },
  dirname: { flags: "z", long: ["zero"] },
  basename: { flags: "az", valued: "s", long: ["multiple", "zero"], longValued: ["suffix"] },
  pwd: { flags: "LP" },
  cd: { flags: "LPe@" },
  pushd: { flags: "n" },
  popd: { flags: "n" },
  which: { flags: "as" },
  type: { flags: "afptP" },
  md5sum: SUMS,
  sha1sum: SUMS,
  sha256sum: SUMS,
  sha512sum: SUMS,
  b2sum: SUMS,
  nl: {
    flags: "p",
    valued: "bdfhilnsvw",
    long: ["no-renumber"],
    longValued: ["body-numbering", "section-delimiter", "footer-numbering", "header-numbering", "line-increment", "join-blank-lines", "number-format", "number-separator", "starting-line-number", "number-width"],
  },
  cut: { flags: "snz", valued: "bcdf", long: ["complement", "only-delimited", "zero-terminated"], longValued: ["bytes", "characters", "delimiter", "fields", "output-delimiter"] },
  tr: { flags: "cCdst", long: ["complement", "delete", "squeeze-repeats", "truncate-set1"] },
  column: {
    flags: "tJnexLdr",
    valued: "csoNRHlWEOTw",
    long: ["table", "json", "fillrows", "keep-empty-lines", "table-noheadings"],
    longValued: ["columns", "separator", "output-separator", "table-columns", "table-name", "table-right", "table-hide", "table-wrap", "table-order", "table-truncate"],
  },
  jq: {
    flags: "rjcnesSCMaR",
    long: ["raw-output", "join-output", "compact-output", "null-input", "exit-status", "slurp", "sort-keys", "color-output", "monochrome-output", "ascii-output", "raw-input", "seq", "stream", "stream-errors", "tab", "raw-output0", "unbuffered"],
    longValued: ["indent"],
  },
  uname: { flags: "asnrvmpio", long: ["all", "kernel-name", "nodename", "kernel-release", "kernel-version", "machine", "processor", "hardware-platform", "operating-system"] },
  id: { flags: "gGnruz", long: ["group", "groups", "name", "real", "user", "zero"] },
  whoami: { flags: "" },
  true: { flags: "" },
  false: { flags: "" },
  rg: {
    flags: "iSswxvnNlcoFuUPHIqa0hV",
    valued: "egtTmABCMEjdr",
    long: ["hidden", "no-ignore", "no-ignore-vcs", "no-ignore-parent", "no-ignore-dot", "no-ignore-global", "files", "files-with-matches", "files-without-match", "count", "count-matches", "json", "line-number", "no-line-number", "heading", "no-heading", "fixed-strings", "ignore-case", "smart-case", "case-sensitive", "word-regexp", "line-regexp", "invert-match", "only-matching", "multiline", "multiline-dotall", "pcre2", "trim", "vimgrep", "column", "no-column", "with-filename", "no-filename", "null", "text", "binary", "type-list", "stats", "quiet", "passthru", "no-messages", "no-config", "crlf", "byte-offset", "no-unicode", "one-file-system", "sort-files", "unrestricted"],
    longValued: ["regexp", "glob", "iglob", "type", "type-not", "max-count", "max-depth", "context", "after-context", "before-context", "color", "colors", "sort", "sortr", "max-columns", "max-filesize", "encoding", "threads", "replace", "path-separator", "context-separator", "field-match-separator", "field-context-separator", "engine"],
  },
};

/** find's tests and actions that neither write, run, nor follow links; with how many values each takes. */
// biome-ignore format: a table
export const FIND: Record<string, number> = Object.fromEntries([
  ...["-print", "-print0", "-ls", "-prune", "-quit", "-empty", "-readable", "-writable", "-executable", "-nouser", "-nogroup", "-true", "-false", "-not", "-a", "-o", "-and", "-or", "-depth", "-xdev", "-mount", "-noleaf", "-daystart", "-P", "-ignore_readdir_race"].map((p) => [p, 0]),
  ...["-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-type", "-xtype", "-maxdepth", "-mindepth", "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-used", "-perm", "-user", "-group", "-uid", "-gid", "-links", "-inum", "-printf", "-lname", "-ilname", "-regextype", "-newer", "-anewer", "-cnewer", "-samefile", "-fstype"].map((p) => [p, 1]),
]);

/** The first argument of `c` that is not on its program's list, or undefined (every option is known and safe). */
export function unlistedOption(c: SimpleCommand): string | undefined {
  // echo prints its arguments. printf takes none of its options here: `-v'a[$(…)]'` assigns, and an array subscript
  // runs its `$(…)` (the eleventh pass); a format starting with `-` follows `--`.
  if (c.name === "echo" || c.name === "") return undefined;
  if (c.name === "printf") return c.args[0]?.startsWith("-") && c.args[0] !== "--" ? c.args[0] : undefined;
  if (c.name === "find") return unlistedFindOption(c.args);
  const o = OPTIONS[c.name];
  if (!o) return c.args.find((a) => a.startsWith("-") && a !== "-") ?? undefined;
  return unlistedIn(c.args, o);
}

/** The first of find's arguments that is not on `table` (a test or action with its value count). */
export function unlistedFindOption(args: readonly string[], table: Record<string, number> = FIND): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith("-") || a === "-") continue;
    const values = table[a];
    if (values === undefined) return a;
    i += values;
  }
  return undefined;
}
