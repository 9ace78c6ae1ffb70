// The programs that run another command (sudo, env, nice, timeout, prlimit, cmake -E chdir …), as the command audit
// reads them: it looks through each to the command it runs (shell-command.ts normalise). A wrapper missing here hides
// its command from every rule: the twenty-third pass deleted outside the workspace under prlimit, setarch, fakeroot,
// valgrind, dbus-run-session and cmake -E chdir (A23-9).

import { longOption } from "./option-table.js";

/** setarch's architecture names; util-linux also links each as a program that runs its command. */
const ARCHITECTURES = new Set([
  "linux32",
  "linux64",
  "x86_64",
  "x86-64",
  "i386",
  "i486",
  "i586",
  "i686",
  "athlon",
  "uname26",
  "aarch64",
  "arm64",
  "arm",
  "armh",
  "armv7l",
  "armv8l",
  "ppc",
  "ppc32",
  "ppc64",
  "ppc64le",
  "ppc64pseries",
  "ppc64iseries",
  "s390",
  "s390x",
  "mips",
  "mips32",
  "mips64",
  "parisc",
  "parisc32",
  "parisc64",
  "sparc",
  "sparc32",
  "sparc32bash",
  "sparc64",
  "ia64",
  "riscv64",
  "loongarch64",
]);

/** Wrappers that run their arguments as a command; value: options that take an argument. */
export const WRAPPERS: Record<string, Set<string>> = {
  sudo: new Set([
    "-u",
    "-g",
    "-U",
    "-C",
    "-h",
    "-p",
    "-r",
    "-t",
    "-D",
    "-R",
    "-T",
    "--user",
    "--group",
    "--prompt",
    "--role",
    "--type",
    "--chdir",
    "--chroot",
    "--close-from",
    "--host",
    "--other-user",
    "--command-timeout",
  ]),
  doas: new Set(["-u", "-C"]),
  env: new Set(["-u", "-C", "-S", "--unset", "--chdir", "--split-string"]),
  nice: new Set(["-n", "--adjustment"]),
  ionice: new Set(["-c", "-n", "-p", "--class", "--classdata", "--pid", "--pgid", "--uid"]),
  nohup: new Set(),
  command: new Set(),
  builtin: new Set(),
  exec: new Set(["-a"]),
  time: new Set(["-f", "-o", "--format", "--output"]),
  stdbuf: new Set(["-i", "-o", "-e", "--input", "--output", "--error"]),
  timeout: new Set(["-s", "-k", "--signal", "--kill-after"]),
  xargs: new Set(["-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "--max-args", "--delimiter", "--arg-file", "--eof", "--max-lines", "--max-procs", "--max-chars", "--process-slot-var"]),
  unbuffer: new Set(),
  setsid: new Set(),
  busybox: new Set(),
  toybox: new Set(),
  chroot: new Set(),
  flock: new Set(["-w", "--wait", "--timeout", "-E", "--conflict-exit-code", "-c", "--command"]),
  taskset: new Set(),
  chrt: new Set(["-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"]),
  strace: new Set([
    "-o",
    "-e",
    "-p",
    "-s",
    "-u",
    "-E",
    "-a",
    "-b",
    "-I",
    "-O",
    "-S",
    "-P",
    "-X",
    "--output",
    "--attach",
    "--user",
    "--env",
    "--trace",
    "--trace-path",
    "--signal",
    "--status",
    "--string-limit",
    "--columns",
    "--abbrev",
    "--verbose",
    "--raw",
    "--read",
    "--write",
    "--fault",
    "--inject",
    "--detach-on",
    "--summary-columns",
    "--summary-sort-by",
    "--sort-by",
  ]),
  ltrace: new Set(["-o", "-e", "-p", "-s", "-u", "-a", "-n", "-l", "-w", "-A", "-D", "-F", "--output", "--library", "--where", "--debug", "--config", "--indent", "--align"]),
  chronic: new Set(),
  unshare: new Set(["-S", "-G", "-R", "-w", "--setuid", "--setgid", "--root", "--wd", "--map-user", "--map-group", "--propagation"]),
  setpriv: new Set([
    "--reuid",
    "--regid",
    "--ruid",
    "--euid",
    "--rgid",
    "--egid",
    "--groups",
    "--inh-caps",
    "--ambient-caps",
    "--bounding-set",
    "--securebits",
    "--pdeathsig",
    "--selinux-label",
    "--apparmor-profile",
    "--landlock-access",
    "--landlock-rule",
  ]),
  caffeinate: new Set(["-t", "-w"]),
  // The twenty-third pass (A23-9) ran `sh -c '…'` unjudged under each of these.
  prlimit: new Set(["-p", "--pid", "-o", "--output"]),
  setarch: new Set(),
  fakeroot: new Set(["-l", "--lib", "--faked", "-s", "-i"]),
  // Debian's fakeroot is an alternative over these (the twenty-fifth pass's A25-3).
  "fakeroot-tcp": new Set(["-l", "--lib", "--faked", "-s", "-i"]),
  "fakeroot-sysv": new Set(["-l", "--lib", "--faked", "-s", "-i"]),
  "fakeroot-ng": new Set(["-l", "-p", "-f"]),
  // `logsave [-asv] LOGFILE cmd…` appends the output to LOGFILE (judged as `>`); `dpkg-architecture … -c cmd…`;
  // `capsh … -- ARGS` runs bash ARGS (`--shell=` another shell); debconf, `gpg-agent --daemon`, fstab-decode run
  // their command. The twenty-fifth pass (A25-1, A25-3, A25-15) ran `sh -c` unjudged under each.
  logsave: new Set(),
  "dpkg-architecture": new Set(["-a", "-t", "-A", "-T", "-W", "-B", "-f", "--host-arch", "--host-type", "--target-arch", "--target-type"]),
  capsh: new Set(),
  debconf: new Set(["-o", "--owner", "-f", "--frontend", "-p", "--priority"]),
  "gpg-agent": new Set(["--homedir", "--options", "--log-file", "--pinentry-program", "--scdaemon-program", "--default-cache-ttl", "--max-cache-ttl"]),
  "fstab-decode": new Set(),
  fakechroot: new Set(["-l", "--lib", "-d", "--elfloader", "-e", "--environment", "-c", "--config-dir"]),
  valgrind: new Set(),
  "dbus-run-session": new Set(),
  eatmydata: new Set(),
  catchsegv: new Set(),
  nsenter: new Set(["-t", "--target", "-S", "--setuid", "-G", "--setgid", "-w", "--wd", "-r", "--root"]),
  cgexec: new Set(["-g"]),
  faketime: new Set(["-m", "-f", "-p"]),
  numactl: new Set(["-C", "-N", "-m", "-i", "-p", "--physcpubind", "--cpunodebind", "--membind", "--interleave", "--preferred"]),
  trickle: new Set(["-u", "-d", "-w", "-t", "-l", "-n"]),
  torsocks: new Set(["-u", "-p", "-a", "-P", "--user", "--pass", "--address", "--port"]),
  proxychains: new Set(["-f"]),
  proxychains4: new Set(["-f"]),
  tsocks: new Set(),
  "ssh-agent": new Set(["-a", "-E", "-t", "-P", "-O"]),
  // The twenty-fourth pass (A24-1): setarch under its architecture names (util-linux links them), and choom.
  ...Object.fromEntries([...ARCHITECTURES].map((n) => [n, new Set<string>()])),
  choom: new Set(["-n", "--adjust", "-p", "--pid"]),
  // `perf stat|record|trace [options] [--] cmd`: the sub-command is its first operand (SKIPS_OPERAND).
  perf: new Set([
    "-e",
    "--event",
    "-o",
    "--output",
    "-p",
    "--pid",
    "-t",
    "--tid",
    "-C",
    "--cpu",
    "-r",
    "--repeat",
    "-G",
    "--cgroup",
    "-x",
    "-I",
    "-F",
    "-c",
    "-m",
    "-u",
    "--uid",
    "-D",
    "--delay",
    "--freq",
    "--count",
    "--mmap-pages",
    "--field-separator",
    "--interval-print",
    "-M",
    "--metrics",
    "--pre",
    "--post",
  ]),
};
/** Wrappers whose first operand is not the command: flock's lock file, taskset's mask, chrt's priority, timeout's duration, chroot's root, setarch's architecture, faketime's time. */
export const SKIPS_OPERAND = /^(?:flock|taskset|chrt|timeout|chroot|setarch|faketime|perf|logsave)$/;
/**
 * Whether `word` is the wrapper's own operand (SKIPS_OPERAND) rather than its command: setarch's architecture is
 * optional (`setarch -R sh -c …` ran unjudged, A27-10), so only a name it knows is skipped there; a computed one
 * (`setarch $(uname -m) …`) may be either and is skipped with the command left unknown (shell-command.ts).
 */
export const ownsOperand = (wrapper: string, word: { text: string; dynamic: boolean }) => wrapper !== "setarch" || word.dynamic || ARCHITECTURES.has(word.text);

/** Wrappers whose skipped operand is a file they write: judged as `>` (logsave's log). */
export const WRITES_OPERAND = /^logsave$/;
/** `cmake -E <tool>` tools that run the rest as a command: `chdir <dir> cmd…`, `env [NAME=VALUE…] cmd…`, `time cmd…` (A23-9). */
export const CMAKE_RUNNERS = /^(?:chdir|env|time)$/;
/**
 * `cmake -E <tool>` file tools, read as the program each stands for, so every rule about that program (edits, deletes
 * outside the workspace, the home) judges them: `cmake -E copy` overwrote tracked files in ask mode unasked, and
 * `cmake -E rm` was refused for "destroying a deployment" (the twenty-third pass's A23-1).
 */
export const CMAKE_FILE_TOOLS: Record<string, string[]> = {
  rm: ["rm"],
  remove: ["rm"],
  remove_directory: ["rm", "-r"],
  copy: ["cp"],
  copy_if_different: ["cp"],
  copy_directory: ["cp", "-r"],
  copy_directory_if_different: ["cp", "-r"],
  rename: ["mv"],
  touch: ["touch"],
  touch_nocreate: ["touch", "-c"],
  make_directory: ["mkdir", "-p"],
  create_symlink: ["ln", "-s"],
  create_hardlink: ["ln"],
  tar: ["tar"],
};
/** Wrappers' options whose value is a file they write (`time -o f`, `strace -o f`, `valgrind --log-file=f`): judged as
 *  `> f` (A24-4, A24-5). Long ones by any GNU abbreviation (`--out=f`: the twenty-fifth pass's A25-4). */
const OUTPUT_OPTIONS: Record<string, { short?: string; long: string[] }> = {
  time: { short: "o", long: ["output"] },
  strace: { short: "o", long: ["output"] },
  ltrace: { short: "o", long: ["output"] },
  valgrind: { long: ["log-file", "xml-file"] },
  perf: { short: "o", long: ["output"] },
};

type Special = { kind: "code" | "chdir" | "output" | "rest" | "shell"; attached?: string };
const valueOf = (a: string) => (a.includes("=") ? { attached: a.slice(a.indexOf("=") + 1) } : {});

/** `a` as the long option `long` (any abbreviation) or the short `-letter` (value attached or not), else undefined. */
function optionAs(kind: Special["kind"], a: string, letter: string | undefined, long: string[]): Special | undefined {
  if (long.some((l) => longOption(a, l, 1))) return { kind, ...valueOf(a) };
  if (letter === undefined || a.startsWith("--") || !a.startsWith(`-${letter}`)) return undefined;
  return a.length > 2 ? { kind, attached: a.slice(2) } : { kind };
}

/**
 * What a wrapper option is besides a flag: its value is a command line (`env -S '…'`, `flock -c '…'`), a folder it
 * changes to (`env -C dir`), a file it writes (`time -o f`); the command follows (`dpkg-architecture -c`); or it names
 * the shell that runs the rest (`capsh --shell=/bin/sh`). A long option matches by any GNU abbreviation (`env --sp=`,
 * `--ch=`: A25-12).
 */
export function wrapperValue(wrapper: string, a: string): Special | undefined {
  const output = Object.hasOwn(OUTPUT_OPTIONS, wrapper) ? OUTPUT_OPTIONS[wrapper] : undefined;
  if (output) return optionAs("output", a, output.short, output.long);
  if (wrapper === "env") return optionAs("code", a, "S", ["split-string"]) ?? optionAs("chdir", a, "C", ["chdir"]);
  if (wrapper === "flock" && (a === "-c" || longOption(a, "command", 1))) return { kind: "code", ...valueOf(a) };
  if (wrapper === "dpkg-architecture" && (a === "-c" || longOption(a, "command", 3))) return { kind: "rest" };
  if (wrapper === "capsh" && longOption(a, "shell", 2)) return { kind: "shell", ...valueOf(a) };
  return undefined;
}

/**
 * A short-option cluster (`-fo`, `-qo../x`, `-iS'cmd'`) as the options getopt reads in it: each letter a flag until
 * one that takes a value, which keeps the rest of the cluster as its attached value (`-o../x`; A25-2).
 */
export function clusterParts(wrapper: string, a: string, valued: Set<string>): string[] {
  if (!/^-[A-Za-z][A-Za-z0-9]/.test(a)) return [a];
  const out: string[] = [];
  for (let i = 1; i < a.length; i++) {
    const flag = `-${a[i]}`;
    if (valued.has(flag) || wrapperValue(wrapper, flag)) return [...out, flag + a.slice(i + 1)];
    out.push(flag);
  }
  return out;
}

/** A tracer or limit tool given a process id to attach to (`-p 12`, `-p12`, `--pid=12`, `--attach 12`). */
export const attachesByPid = (wrapper: string, rest: readonly { text: string }[]) =>
  /^(?:strace|ltrace|prlimit|perf|gdb)$/.test(wrapper) && rest.some((w) => /^(?:-[\w#]*p\d*|--pid(?:=.*)?|--attach(?:=.*)?)$/.test(w.text));

/**
 * Where a shell's `-c` code is: the first word after the option that is not an option itself. bash and sh read
 * options up to there (`bash -c -- '…'`, `bash -c -e '…'`, `-O extglob`, `-` ends them): the twenty-ninth pass's A29a-8
 * deleted a home folder through `bash -c -- 'cd && rm -rf Documents'`, read as the code `--`.
 */
export function shellCodeAt(args: string[], ci: number): number {
  let j = ci + 1;
  while (j < args.length && /^[-+]/.test(args[j]!)) {
    if (args[j] === "--" || args[j] === "-") return j + 1;
    j += /^[-+][oO]$/.test(args[j]!) ? 2 : 1;
  }
  return j;
}
