// File utilities whose job is to write a file: they make ask mode ask as for an edit, like `cp` or `sed -i` do. The
// eighteenth adversarial pass's E1: `uniq notes.txt main.c` and `iconv … -o crlf.txt` overwrote files in ask mode with
// no edit prompt, because the edit rules named the writers they knew (shell-audit.ts) and these were not among them.
// By what each program writes, as its manual says:
// - always (its job is the file): split, csplit, mkfifo, mknod, mktemp (but -u), strip, objcopy, ranlib, dos2unix and
//   kin, zip, ssh-keygen (but its reading forms), ImageMagick, ffmpeg;
// - its second file operand: uniq, xxd, `python -m json.tool`;
// - an output option: iconv/shuf/pandoc/gpg/msgfmt/cwebp/rsvg-convert `-o`/`--output…`, openssl `-out`/`-keyout`;
// - a writing sub-command: 7z a/d/e/x/u/rn, ar with d/m/q/r/x, cpio -i/-p (or an archive named with -O/-F), tar
//   creating, appending or updating a named archive (extraction is shell-audit.ts's tarExtracts).
// - in place, by another name than `sed -i`: yq/awk `-i`, sponge, sd; a formatter told to write (`--write`, `-w`, `-i`,
//   `--fix`) or one that writes unless told to check (black, ruff format, isort, rustfmt, cargo/go fmt, terraform fmt);
// - other writers the nineteenth pass listed: ghostscript `-o`, qpdf, pdftk `output`, brotli, mmv, git archive `-o`,
//   git format-patch, git bundle create;
// - and the twenty-third pass's: fallocate, script (its typescript file, `typescript` when none is named), ctags/etags
//   (`tags` unless -x or `-f -`), `python -m zipfile|tarfile -e|-c`, `python -m gzip`. (`cmake -E` file tools are read
//   as the programs they stand for: shell-command.ts.)
// And a word bash expands before the operands may be any of those options (`sort ${x:--o} out f`: PM11's shape), so
// for these programs, and sort and dd, such a word counts as a write too.
// Not here: programs that write on their own (builds, test runners, scripts): they cannot be judged before they run,
// and the run's rewind snapshot covers them (docs/security.md).
import { longOption } from "./option-table.js";
import { isFlag, type SimpleCommand } from "./shell-command.js";
import { dynamicBeforeOperands, notAFile } from "./shell-read-only.js";
import { launchedCommand } from "./shell-runners.js";

/** Short options that take the next word as their value, per program (`uniq -f 1 a b`: 1 is not a file). */
const VALUED: Record<string, RegExp> = { uniq: /^-[a-zA-Z]*[fsw]$/, xxd: /^-[a-zA-Z]*[cglsonR]$/, script: /^-[a-zA-Z]*[cEOIBTm]$|^--(?:command|echo|log-\w+|logging-format)$/ };

function fileOperands(c: SimpleCommand): string[] {
  const out: string[] = [];
  const valued = VALUED[c.name];
  for (let i = 0; i < c.args.length; i++) {
    const a = c.args[i]!;
    if (a === "--") return [...out, ...c.args.slice(i + 1)];
    if (valued?.test(a)) i++;
    else if (!isFlag(a)) out.push(a);
  }
  return out;
}

/** The value of an output option (`-o f`, `-of`, `--output f`, `--output=f`), when one is given. */
function outputOf(c: SimpleCommand, short: RegExp, long: RegExp): string | undefined {
  for (let i = 0; i < c.args.length; i++) {
    const a = c.args[i]!;
    if (a === "--") return undefined;
    const eq = long.exec(a);
    if (eq) return eq[1] ?? c.args[i + 1];
    const s = short.exec(a);
    if (s) return s[1] || c.args[i + 1];
  }
  return undefined;
}

const isFile = (c: SimpleCommand, target: string | undefined) => target !== undefined && target !== "-" && !notAFile(c, { op: ">", target });

const ALWAYS = /^(?:split|csplit|mkfifo|mknod|strip|objcopy|ranlib|dos2unix|unix2dos|mac2unix|unix2mac|zip|convert|mogrify|ffmpeg|mmv|fallocate)$/;
/** Formatters and fixers that write only when told to (`--write`, `-w`, `-i`, `--fix`). */
const WRITE_FLAG = /^(?:prettier|eslint|biome|stylelint|gofmt|goimports|clang-format|autopep8|shfmt|yapf|dprint|standard|xo|rubocop|swiftformat|ktlint)$/;
/** Formatters that write unless told to check (`--check`, `--diff`, `-l`, `-check`, `--dry-run`). */
const WRITES_UNLESS_CHECK = /^(?:black|isort|rustfmt)$/;
const OUTPUT_OPTION = /^(?:iconv|shuf|pandoc|gpg|gpg2|msgfmt|cwebp|rsvg-convert|sort)$/;
const SECOND_OPERAND = /^(?:uniq|xxd)$/;
const EXPANDED_OPTION = /^(?:iconv|shuf|pandoc|gpg|gpg2|msgfmt|sort|dd|uniq|xxd|openssl|tar|cpio|7z|7za|7zr|zip|split|ssh-keygen)$/;

function writes(c: SimpleCommand): boolean {
  const ops = fileOperands(c);
  if (ALWAYS.test(c.name)) return !c.args.some((a) => /^-(?:-?version|-?help|h)$/.test(a));
  if (c.name === "sponge") return fileOperands(c).length > 0;
  if (c.name === "sd") return fileOperands(c).length >= 3 && !c.args.some((a) => /^(?:-p|--preview)$/.test(a));
  if (c.name === "qpdf") return fileOperands(c).length >= 2 && !c.args.some((a) => /^--(?:check|show|json|requires-password)/.test(a));
  if (c.name === "brotli") return !c.args.some((a) => /^(?:-c|--stdout|-t|--test|-h|--help|--version)$/.test(a));
  if (WRITE_FLAG.test(c.name)) return c.args.some((a) => /^(?:--write|-w|-i|--fix|--in-place|-a|--apply|--autocorrect|-A|-F)$|^-[a-zA-Z]*[wi]$/.test(a) && a !== "-ignore");
  if (WRITES_UNLESS_CHECK.test(c.name)) return !c.args.some((a) => /^(?:--check|--diff|-l|--list-different|-c|--dry-run|--version|-h|--help)$/.test(a));
  if (/^(?:cargo|go)$/.test(c.name) && /^fmt$/.test(fileOperands(c)[0] ?? "")) return !c.args.some((a) => /^(?:--check|-n|-l)$/.test(a));
  if (/^(?:terraform|tofu)$/.test(c.name) && fileOperands(c)[0] === "fmt") return !c.args.some((a) => /^-+(?:check|diff|list=true)/.test(a));
  if (c.name === "ruff") return (fileOperands(c)[0] === "format" && !c.args.some((a) => /^--(?:check|diff)$/.test(a))) || c.args.includes("--fix");
  if (c.name === "yq") return c.args.some((a) => /^(?:-i|--inplace|--in-place)$|^-[a-zA-Z]*i$/.test(a));
  if (/^g?awk$/.test(c.name)) return c.args.some((a, i) => (a === "-i" || a === "--include") && c.args[i + 1] === "inplace") || c.args.includes("-iinplace");
  if (/^(?:gs|ghostscript)$/.test(c.name)) return c.args.some((a) => a === "-o" || /^-sOutputFile=/.test(a));
  if (c.name === "pdftk") return c.args.includes("output");
  if (c.name === "git") {
    const ops = fileOperands(c);
    return (ops[0] === "archive" && c.args.some((a) => /^(?:-o|--output)/.test(a))) || ops[0] === "format-patch" || (ops[0] === "bundle" && ops[1] === "create");
  }
  // A package manager's own commands that rewrite the manifest (`npm pkg set scripts.x=…`, `npm version 2.0.0`).
  if (/^(?:npm|pnpm|yarn|bun)$/.test(c.name) && ops[0] === "pkg") return /^(?:set|delete|fix)$/.test(ops[1] ?? "");
  // `npm init` writes package.json; shrinkwrap renames the lock file; prune deletes packages from node_modules (A27-3).
  if (/^(?:npm|pnpm|yarn|bun)$/.test(c.name) && /^(?:init|innit|shrinkwrap|prune)$/.test(ops[0] ?? "")) return true;
  if (/^(?:npm|pnpm|yarn)$/.test(c.name) && ops[0] === "version") return ops.length > 1 || c.args.some((a) => /^--(?:new-version|major|minor|patch)/.test(a));
  if (c.name === "mktemp") return !c.args.some((a) => /^-[a-zA-Z]*u|^--dry-run$/.test(a));
  if (c.name === "magick") return ops[0] !== "identify" && !c.args.some((a) => /^-(?:-?version|-?help)$/.test(a));
  if (c.name === "ssh-keygen") return !c.args.some((a) => /^-[a-zA-Z]*[lFyLBQ]/.test(a)) || c.args.some((a) => /^-[a-zA-Z]*R/.test(a));
  if (SECOND_OPERAND.test(c.name)) return isFile(c, ops[1]);
  if (/^python[\d.]*$/.test(c.name) && c.args[0] === "-m" && c.args[1] === "json.tool") return isFile(c, ops.filter((a) => a !== "json.tool")[1]);
  if (/^python[\d.]*$/.test(c.name) && c.args[0] === "-m" && /^(?:zipfile|tarfile)$/.test(c.args[1] ?? "")) return c.args.some((a) => /^(?:-e|--extract|-c|--create)$/.test(a));
  if (/^python[\d.]*$/.test(c.name) && c.args[0] === "-m" && c.args[1] === "gzip") return ops.length > 1;
  if (c.name === "script") {
    const logs = c.args.some((a, i) => /^-[a-zA-Z]*[OIBT]$|^--log-(?:out|in|io|timing)$/.test(a) && isFile(c, c.args[i + 1]));
    return logs || ops.length === 0 || isFile(c, ops.at(-1));
  }
  if (/^(?:ctags|etags|ctags-universal|exuberant-ctags)$/.test(c.name)) return !c.args.some((a, i) => a === "-x" || (/^-[fo]$/.test(a) && c.args[i + 1] === "-") || /^-[fo]-$|^--output=-$/.test(a));
  if (OUTPUT_OPTION.test(c.name)) return isFile(c, outputOf(c, /^-[a-zA-Z]*o(.*)$/, /^--output(?:-file)?(?:=(.*))?$/));
  if (c.name === "openssl") return c.args.some((a, i) => /^-(?:out|keyout)$/.test(a) && isFile(c, c.args[i + 1]));
  if (/^7z[ar]?$/.test(c.name)) return /^(?:a|d|e|x|u|rn)$/.test(ops[0] ?? "");
  if (c.name === "ar") return /^-?[a-zA-Z]*[dmqrx]/.test(c.args[0] ?? "");
  if (c.name === "cpio") return c.args.some((a) => /^-[a-zA-Z]*[ip]|^--(?:extract|pass-through)$|^-[OF]|^--file/.test(a));
  if (c.name === "tar" || c.name === "bsdtar") {
    const mode = c.args[0] && !c.args[0].startsWith("-") ? c.args[0] : c.args.filter((a) => /^-[a-zA-Z]+$/.test(a)).join("");
    const creates = /[cru]/.test(mode) || c.args.some((a) => ["create", "append", "update"].some((o) => longOption(a, o, 2)));
    return creates && isFile(c, outputOf(c, /^-[a-zA-Z]*f(.*)$/, /^--file(?:=(.*))?$/) ?? (/^[a-zA-Z]*f/.test(c.args[0] ?? "") ? c.args[1] : undefined));
  }
  return false;
}

const COMPILER = /^(?:cc|c\+\+|gcc|g\+\+|clang|clang\+\+|cpp|tcc|[\w.-]+-(?:gcc|g\+\+|clang)(?:-\d+)?|gcc-\d+|clang-\d+)$/;
/** Python modules that write the file an option or operand names (`-o`, `pydoc -w`), or a folder (venv, compileall). */
const PYTHON_WRITERS = /^(?:profile|cProfile|zipapp|pickletools|pydoc|venv|virtualenv|compileall|py_compile|trace)$/;
/** node flags that write a file (profiles, reports, warnings) into the cwd or a named place. */
const NODE_WRITES =
  /^--(?:prof|heap-prof|cpu-prof|heapsnapshot-signal|redirect-warnings|report-filename|report-dir|report-directory|diagnostic-dir|report-on-signal|report-uncaught-exception|report-on-fatalerror|heapsnapshot-near-heap-limit|trace-event-file-pattern|prof-process)(?:=|$)/;

/**
 * The twenty-fifth pass's writers (A25-9, A25-14): a compiler's explicit output (`-o f`, `-MF f`, `cpp in out`), node's
 * profiling and report flags, Python modules that write (`-m profile -o`, `pydoc -w`, `zipapp`, `venv`), and git
 * commands given `--output` (range-diff, whatchanged: the read list already refuses it for log/diff/show).
 */
function toolWrites(c: SimpleCommand): boolean {
  if (COMPILER.test(c.name)) {
    const out = c.args.some((a, i) => (/^-(?:o|MF|MQ)$/.test(a) && isFile(c, c.args[i + 1])) || (/^-(?:o|MF)(.+)$/.test(a) && isFile(c, a.replace(/^-(?:o|MF)/, ""))));
    return out || (c.name === "cpp" && isFile(c, fileOperands(c)[1]));
  }
  if (/^(?:node|nodejs)$/.test(c.name)) return c.args.some((a) => NODE_WRITES.test(a));
  if (/^python[\d.]*$/.test(c.name)) {
    const m = c.args.indexOf("-m");
    const mod = m >= 0 ? (c.args[m + 1] ?? "") : "";
    // profile, pydoc, trace and pickletools write only when told to; the rest always do.
    const told = !/^(?:profile|cProfile|pickletools|pydoc|trace)$/.test(mod) || c.args.some((a) => /^-[wo]|^--(?:outfile|output|file|coverdir)/.test(a));
    return PYTHON_WRITERS.test(mod) && told;
  }
  return c.name === "git" && c.args.some((a) => /^--(?:outp?u?t?|output-directory)(?:=|$)/.test(a) || a === "-o");
}

/** The command writes a file because writing one is what the program does (see above): ask mode asks as for an edit. */
export function writesOwnOutput(c: SimpleCommand): boolean {
  if (EXPANDED_OPTION.test(c.name) && dynamicBeforeOperands(c)) return true;
  if (writes(c) || toolWrites(c)) return true;
  // What a runner starts (shell-runners.ts): `npx prettier --write .` writes as `prettier --write .` does.
  const inner = launchedCommand(c);
  return inner !== undefined && writesOwnOutput(inner);
}
