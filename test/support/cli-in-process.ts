// The CLI driven in the test process: the same `main(argv)` that `bin/deerflow` calls (commander parsing, the command,
// its output format and exit code), with the sandbox's env, cwd and stdin, and stdout/stderr captured. A spawned CLI
// imports ~1,500 modules per start (~1.9 s here); this costs what the command itself costs. Tests that test the process
// itself (signals, kill -9, a real exit status, Node's own warnings) keep `sb.run`/`sb.spawn` (test/support/cli.ts).
//
// Everything process-wide the CLI touches is put back after each call: process.env (replaced by the sandbox's, as
// `extendEnv: false` does for a child), the cwd, stdin (a finished stream holding `input`, as a pipe or /dev/null
// would be), stdout/stderr writes, isTTY, process.exitCode, and the listeners main() adds (a SIGUSR1 one left by
// every call made Node warn on the 101st, in the middle of some later test's stderr). So one call at a time:
// runs that must overlap are separate processes (`sb.run`/`sb.spawn`). What a process caches for its lifetime (the
// skill catalog, whether git runs, a once-per-process warning) stays cached from one call to the next.
import { EventEmitter } from "node:events";
import { Readable } from "node:stream";
import type { CliResult, Sandbox } from "./cli.js";

export interface InProcessOptions {
  input?: string;
  env?: Record<string, string | undefined>;
  cwd?: string;
}

// vitest's own worker reads these while a test runs; the CLI never does.
const KEEP = /^(VITEST|NODE_V8_COVERAGE$|TINYPOOL)/;

let busy = false;

/** Runs `deerflow <args>` in this process against the sandbox; resolves to what a spawned CLI would have printed. */
export async function runCli(sb: Pick<Sandbox, "env" | "cwd">, args: string[], opts: InProcessOptions = {}): Promise<CliResult> {
  if (busy) throw new Error("runCli: another in-process CLI call is running; overlapping runs need separate processes (sb.run / sb.spawn)");
  busy = true;
  try {
    return await runOnce(sb, args, opts);
  } finally {
    busy = false;
  }
}

type Writable = NodeJS.WriteStream;

function capture(stream: Writable, sink: string[]): () => void {
  const write = stream.write;
  const tty = Object.getOwnPropertyDescriptor(stream, "isTTY");
  stream.write = ((chunk: string | Uint8Array, encoding?: unknown, cb?: unknown) => {
    sink.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    const done = typeof encoding === "function" ? encoding : cb;
    if (typeof done === "function") queueMicrotask(() => (done as () => void)());
    return true;
  }) as Writable["write"];
  // A child's stdout and stderr are pipes, never a terminal.
  Object.defineProperty(stream, "isTTY", { value: false, configurable: true, writable: true });
  return () => {
    stream.write = write;
    if (tty) Object.defineProperty(stream, "isTTY", tty);
    else delete (stream as { isTTY?: boolean }).isTTY;
  };
}

function swapEnv(env: Record<string, string | undefined>): () => void {
  const saved = { ...process.env };
  for (const k of Object.keys(process.env)) if (!KEEP.test(k)) delete process.env[k];
  for (const [k, v] of Object.entries(env)) if (v !== undefined) process.env[k] = v;
  return () => {
    for (const k of Object.keys(process.env)) delete process.env[k];
    Object.assign(process.env, saved);
  };
}

function swapStdin(input: string | undefined): () => void {
  const own = Object.getOwnPropertyDescriptor(process, "stdin");
  const stdin = Readable.from(input === undefined ? [] : [Buffer.from(input)]);
  Object.defineProperty(process, "stdin", { value: stdin, configurable: true, writable: true });
  return () => {
    if (own) Object.defineProperty(process, "stdin", own);
    else delete (process as { stdin?: unknown }).stdin;
  };
}

async function runOnce(sb: Pick<Sandbox, "env" | "cwd">, args: string[], opts: InProcessOptions): Promise<CliResult> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const cwd = process.cwd();
  const exitCode = process.exitCode;
  const maxListeners = EventEmitter.defaultMaxListeners;
  const errorListeners = process.stdout.listeners("error");
  const signals = (["SIGINT", "SIGTERM", "SIGHUP", "SIGUSR1"] as const).map((s) => [s, process.listeners(s)] as const);
  const restore = [swapEnv({ ...sb.env, ...opts.env }), swapStdin(opts.input), capture(process.stdout, stdout), capture(process.stderr, stderr)];
  process.exitCode = undefined;
  let code: number;
  try {
    process.chdir(opts.cwd ?? sb.cwd);
    const { main } = await import("../../src/cli/main.js");
    await main(["node", "deerflow", ...args]);
    code = Number(process.exitCode ?? 0);
  } finally {
    for (const r of restore.reverse()) r();
    process.chdir(cwd);
    process.exitCode = exitCode;
    EventEmitter.defaultMaxListeners = maxListeners;
    for (const l of process.stdout.listeners("error")) if (!errorListeners.includes(l)) process.stdout.off("error", l as () => void);
    for (const [s, before] of signals) for (const l of process.listeners(s)) if (!before.includes(l)) process.off(s, l);
  }
  return { exitCode: code, stdout: stdout.join(""), stderr: stderr.join("") };
}
