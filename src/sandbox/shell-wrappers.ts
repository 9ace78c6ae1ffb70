// The programs that run another command (sudo, env, nice, timeout, prlimit, cmake -E chdir …), as the command audit
// reads them: it looks through each to the command it runs (shell-command.ts normalise). A wrapper missing here hides
// its command from every rule: the twenty-third pass deleted outside the workspace under prlimit, setarch, fakeroot,
// valgrind, dbus-run-session and cmake -E chdir (A23-9).

/** Wrappers that run their arguments as a command; value: options that take an argument. */
export const WRAPPERS: Record<string, Set<string>> = {
  sudo: new Set(["-u", "-g", "-U", "-C", "-h", "-p", "-r", "-t", "-D", "-R", "-T"]),
  doas: new Set(["-u", "-C"]),
  env: new Set(["-u", "-C", "-S", "--unset", "--chdir", "--split-string"]),
  nice: new Set(["-n", "--adjustment"]),
  ionice: new Set(["-c", "-n", "-p", "--class", "--classdata"]),
  nohup: new Set(),
  command: new Set(),
  builtin: new Set(),
  exec: new Set(["-a"]),
  time: new Set(["-f", "-o", "--format", "--output"]),
  stdbuf: new Set(["-i", "-o", "-e"]),
  timeout: new Set(["-s", "-k", "--signal", "--kill-after"]),
  xargs: new Set(["-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "--max-args", "--delimiter"]),
  unbuffer: new Set(),
  setsid: new Set(),
  busybox: new Set(),
  toybox: new Set(),
  chroot: new Set(),
  flock: new Set(["-w", "--wait", "--timeout", "-E", "--conflict-exit-code", "-c", "--command"]),
  taskset: new Set(),
  chrt: new Set(["-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"]),
  strace: new Set(["-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-S", "-P", "-X", "--output", "--attach", "--user", "--env"]),
  ltrace: new Set(["-o", "-e", "-p", "-s", "-u", "-a", "-n", "-l", "-w", "-A", "-D", "-F", "--output", "--library"]),
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
  linux32: new Set(),
  linux64: new Set(),
  fakeroot: new Set(["-l", "--lib", "--faked", "-s", "-i"]),
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
  ...Object.fromEntries(
    [
      "x86_64",
      "i386",
      "i486",
      "i586",
      "i686",
      "uname26",
      "aarch64",
      "arm",
      "armv7l",
      "armv8l",
      "ppc",
      "ppc32",
      "ppc64",
      "ppc64le",
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
      "sparc64",
      "ia64",
    ].map((n) => [n, new Set<string>()]),
  ),
  choom: new Set(["-n", "--adjust", "-p", "--pid"]),
  // `perf stat|record|trace [options] [--] cmd`: the sub-command is its first operand (SKIPS_OPERAND).
  perf: new Set(["-e", "--event", "-o", "--output", "-p", "--pid", "-t", "--tid", "-C", "--cpu", "-r", "--repeat", "-G", "--cgroup", "-x", "-I", "-F", "-c", "-m", "-u", "--uid"]),
};
/** Wrappers whose first operand is not the command: flock's lock file, taskset's mask, chrt's priority, timeout's duration, chroot's root, setarch's architecture, faketime's time. */
export const SKIPS_OPERAND = /^(?:flock|taskset|chrt|timeout|chroot|setarch|faketime|perf)$/;
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
/** A wrapper option whose value is a command line (`env -S '…'`, `flock -c '…'`), or one that changes directory (`env -C dir`). */
/** Wrappers' options whose value is a file they write (`time -o f`, `strace -o f`, `valgrind --log-file=f`): judged as `> f` (A24-4, A24-5). */
const OUTPUT_OPTIONS: Record<string, { short?: RegExp; long: RegExp }> = {
  time: { short: /^-o$/, long: /^--output(?:=|$)/ },
  strace: { short: /^-o$/, long: /^--output(?:=|$)/ },
  ltrace: { short: /^-o$/, long: /^--output(?:=|$)/ },
  valgrind: { long: /^--(?:log-file|xml-file)(?:=|$)/ },
  perf: { short: /^-o$/, long: /^--output(?:=|$)/ },
};

export function wrapperValue(wrapper: string, a: string): { kind: "code" | "chdir" | "output"; attached?: string } | undefined {
  const output = Object.hasOwn(OUTPUT_OPTIONS, wrapper) ? OUTPUT_OPTIONS[wrapper] : undefined;
  if (output?.short?.test(a) || output?.long.test(a)) return { kind: "output", ...(a.includes("=") ? { attached: a.slice(a.indexOf("=") + 1) } : {}) };
  if (output?.short && /^-o./.test(a)) return { kind: "output", attached: a.slice(2) };
  if (wrapper === "env") {
    if (a === "-S" || a === "--split-string") return { kind: "code" };
    if (/^(?:-S.|--split-string=)/.test(a)) return { kind: "code", attached: a.startsWith("--") ? a.slice(15) : a.slice(2) };
    if (a === "-C" || a === "--chdir") return { kind: "chdir" };
    if (/^(?:-C.|--chdir=)/.test(a)) return { kind: "chdir", attached: a.startsWith("--") ? a.slice(8) : a.slice(2) };
  }
  if (wrapper === "flock" && (a === "-c" || a === "--command")) return { kind: "code" };
  return undefined;
}
