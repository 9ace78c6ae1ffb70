// The CLI entry: parse flags with commander and lazy-load the command that runs. Nothing heavy is imported here:
// `deerflow --version` and `--help` must start in about the time of bare node.
import { EventEmitter } from "node:events";
import { readFileSync } from "node:fs";
import { Command, CommanderError, Option } from "commander";
import { reportFatal } from "./report-error.js";
import { UsageError } from "../errors.js";
import { sharedOption } from "./shared-options.js";
import { MAX_RUN_TIMEOUT_SECONDS } from "../config/run-timeout.js";

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

export interface GlobalOptions {
  home?: string;
  model?: string;
  debug?: boolean;
}

/**
 * A command of the runtime bundle (load-runtime.ts), imported only when one runs: --version and --help load none of
 * it. `config`, `trust` and `memory` load no runtime: their own few modules cost less than the bundle (measured).
 */
const fromRuntime: typeof import("./load-runtime.js").fromRuntime = async (use, command) => (await import("./load-runtime.js")).fromRuntime(use, command);

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function positiveInt(name: string, max = Number.MAX_SAFE_INTEGER) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${name} must be a positive integer (got "${value}").`);
    if (n > max) throw new UsageError(`${name} must be at most ${max} (got "${value}").`);
    return n;
  };
}

export function buildProgram(): Command {
  const program = new Command("deerflow")
    .description("A terminal coding agent.")
    .version(packageVersion(), "-V, --version", "print the version")
    .option("--home <dir>", "data directory (default: $DEERFLOW_HOME, else ~/.deerflow)")
    .option("-m, --model <name>", 'model to use: a name from .deerflowrc "models", or a model id')
    .option("--debug", "write a debug log (JSON lines, secrets masked) to $DEERFLOW_LOG, else <home>/logs/debug.jsonl")
    .showHelpAfterError("(run `deerflow --help` for usage)")
    .configureOutput({ outputError: (str, write) => write(str) })
    .exitOverride()
    .hook("preAction", async (_program, action) => {
      const opts = action.optsWithGlobals() as GlobalOptions;
      if (opts.debug || process.env.DEERFLOW_LOG) (await import("./start-debug-log.js")).startDebugLog(opts, action.name(), packageVersion());
    });

  // What a chat session takes (chat and resume), in help order; run declares its own order of the shared options.
  const chatOptions = (cmd: Command) =>
    (["workspace", "scratch", "approval", "permissionMode", "goal", "network", "memory", "dangerousWorkspace", "unconfined"] as const).reduce(
      (c, name) => c.addOption(sharedOption(name, "chat")),
      cmd,
    );

  chatOptions(
    program
      .command("chat", { isDefault: true })
      .description("the interactive TUI (the default command)")
      .argument("[prompt...]", "a first message to send")
      .addOption(sharedOption("thread", "chat"))
      .addOption(sharedOption("continue", "chat")),
  ).action(async (promptWords: string[], opts, cmd: Command) => {
    const { chatCommand } = await import("./commands/chat.js");
    process.exitCode = await chatCommand(promptWords, { ...cmd.optsWithGlobals(), ...opts });
  });

  chatOptions(program.command("resume").description("reopen a thread in the TUI where it stopped").argument("<thread>", "the thread id (see `deerflow threads`)")).action(
    async (thread: string, opts, cmd: Command) => {
      const { chatCommand } = await import("./commands/chat.js");
      process.exitCode = await chatCommand([], { ...cmd.optsWithGlobals(), ...opts, thread });
    },
  );

  program
    .command("run")
    .description("run one request headless; the prompt comes from the argument or piped stdin (with both, stdin is the material)")
    .argument("[prompt...]", "what to do")
    .addOption(sharedOption("thread", "run"))
    .addOption(sharedOption("continue", "run"))
    .addOption(sharedOption("workspace", "run"))
    .addOption(sharedOption("scratch", "run"))
    .option("--upload <file>", "attach a file (copied to the thread's uploads; repeatable; `@path` in the prompt works too)", collect, [])
    .addOption(sharedOption("approval", "run"))
    .option("--yes", "approve what would ask (blocked commands stay blocked)")
    .option("--fail-on-denial", "exit 6 when a tool call was denied or blocked and the run would otherwise exit 0")
    .addOption(sharedOption("permissionMode", "run"))
    .addOption(new Option("--output-format <format>", "text: answer on stdout; json: one object at the end; stream-json: one event per line").choices(["text", "json", "stream-json"]).default("text"))
    .option("--max-turns <n>", "stop after this many model calls in the run (exit 5)", positiveInt("--max-turns"))
    .option("--input-id <id>", "an idempotency key: the same input id on a thread runs once; a repeat prints the recorded result")
    .option("--timeout <seconds>", "stop the run after this many seconds: status timeout, exit 5 (default: .deerflowrc runTimeout, else none)", positiveInt("--timeout", MAX_RUN_TIMEOUT_SECONDS))
    .addOption(sharedOption("goal", "run"))
    .option("--max-continuations <n>", "goal mode: at most this many continuation runs (default 8)", positiveInt("--max-continuations"))
    .addOption(sharedOption("network", "run"))
    .addOption(sharedOption("memory", "run"))
    .addOption(sharedOption("dangerousWorkspace", "run"))
    .addOption(sharedOption("unconfined", "run"))
    .action(async (promptWords: string[], opts, cmd: Command) => {
      process.exitCode = await fromRuntime("run", (rt) => rt.runCommand(promptWords, { ...cmd.optsWithGlobals(), ...opts }));
    });

  const threads = program
    .command("threads")
    .description("list threads, newest first: id, title, updated, status, workspace")
    .option("--json", "print JSON")
    .action(async (opts, cmd: Command) => {
      process.exitCode = await fromRuntime("threads", (rt) => rt.threadsCommand({ ...cmd.optsWithGlobals(), ...opts }));
    });
  threads
    .command("show")
    .description("one thread as saved: its conversation, runs and the machine it last ran on (read-only)")
    .argument("<thread>", "the thread id")
    .option("--json", "print JSON")
    .action(async (thread: string, opts, cmd: Command) => {
      process.exitCode = await fromRuntime("threads", (rt) => rt.threadsShowCommand(thread, { ...cmd.optsWithGlobals(), ...opts }));
    });
  threads
    .command("export")
    .description("the whole thread (archived turns, tool calls, diffs, todos, subagent reports, usage; secrets masked) as Markdown or JSON")
    .argument("<thread>", "the thread id")
    .option("--format <format>", "md or json (default md)")
    .option("-o, --output <file>", "write to this file (a new one) instead of stdout")
    .option("--force", "with -o: replace the file if it exists")
    .action(async (thread: string, opts, cmd: Command) => {
      process.exitCode = await fromRuntime("threads", (rt) => rt.threadsExportCommand(thread, { ...cmd.optsWithGlobals(), ...opts }));
    });
  threads
    .command("rm")
    .description("delete a thread and all its data (a workspace bound with --workspace is left as it is)")
    .argument("<thread>", "the thread id")
    .action(async (thread: string, _opts, cmd: Command) => {
      process.exitCode = await fromRuntime("threads", (rt) => rt.threadsRmCommand(thread, cmd.optsWithGlobals()));
    });

  program
    .command("rewind")
    .description("put a thread's conversation and files back to before its last run (or its last N runs)")
    .argument("<thread>", "the thread id (see `deerflow threads`)")
    .option("--runs <n>", "undo the last n runs (default 1)", positiveInt("--runs"))
    .option("--files-only", "restore the workspace's files only; the conversation stays")
    .option("--conversation-only", "restore the conversation only; the files stay")
    .option("--list", "list the runs it can go back over: time, input, files changed")
    .option("--undo", "put back the last rewind (if the thread has not run since)")
    .option("--force", "also take back files you changed since the last run (left as they are by default)")
    .option("--json", "print JSON")
    .action(async (thread: string, opts, cmd: Command) => {
      process.exitCode = await fromRuntime("rewind", (rt) => rt.rewindCommand(thread, { ...cmd.optsWithGlobals(), ...opts }));
    });

  program
    .command("config")
    .description("print the resolved configuration (secrets masked)")
    .option("--json", "print JSON")
    .action(async (opts, cmd: Command) => {
      const { configCommand } = await import("./commands/config.js");
      process.exitCode = await configCommand({ ...cmd.optsWithGlobals(), ...opts });
    });

  program
    .command("memory")
    .description("the facts remembered across threads: list (default), add, edit <n>, forget <n…>, clear; learned facts wait in pending until you approve them")
    .argument("[action]", "list | add <text> | edit <n> <text> | forget <n…> | clear | pending | approve <n…|all> | reject <n…|all>")
    .argument("[args...]", "the fact's text, or its number(s)")
    .option("--project", "add: a fact about this project (the working directory's repository) instead of a global one")
    .option("--all", "list, pending: every project's facts too")
    .option("--json", "print JSON")
    .action(async (action: string | undefined, args: string[], opts, cmd: Command) => {
      const { memoryCommand } = await import("./commands/memory.js");
      process.exitCode = await memoryCommand(action, args, { ...cmd.optsWithGlobals(), ...opts });
    });

  program
    .command("mcp")
    .description("MCP servers from .deerflowrc")
    .command("list")
    .description("start the configured MCP servers and list their status and tools")
    .option("--json", "print JSON")
    .action(async (opts, cmd: Command) => {
      process.exitCode = await fromRuntime("mcp", (rt) => rt.mcpListCommand({ ...cmd.optsWithGlobals(), ...opts }));
    });

  program
    .command("db")
    .description("the team database")
    .command("migrate")
    .description("copy the home's SQLite threads into a team database (each verified by reading it back)")
    .requiredOption("--from <source>", "sqlite: the home's database file")
    .option("--to <url>", "postgres://user:password@host:5432/db (default: `database` / DEERFLOW_DATABASE_URL)")
    .option("--json", "print JSON")
    .action(async (opts, cmd: Command) => {
      process.exitCode = await fromRuntime("db", (rt) => rt.dbMigrateCommand({ ...cmd.optsWithGlobals(), ...opts }));
    });

  program
    .command("eval")
    .description("run the agent on the eval suite (throwaway repositories with automatic checks) and report per task")
    .option("--tasks <ids>", "only these tasks, comma-separated (see --list)")
    .option("--suite <dir>", "a folder of tasks (one folder each: task.json + repo/; default: the built-in suite)")
    .option("--repeat <n>", "attempts per task", positiveInt("--repeat", 100))
    .option("--parallel <n>", "attempts run at the same time (default 1)", positiveInt("--parallel", 16))
    .option("--timeout <seconds>", "cap every task's time limit", positiveInt("--timeout", MAX_RUN_TIMEOUT_SECONDS))
    .option("--yes", "approve guarded shell commands (default: denied, as in `deerflow run`)")
    .option("--dangerously-run-unconfined", "allow --yes without bubblewrap: the agent's commands then run on this host unasked")
    .option("--json", "print the JSON report instead of the table")
    .option("--out <file>", "also write the JSON report to this file (for --compare)")
    .option("--record <dir>", "save each attempt's model exchanges (request and response bodies, no headers) to this folder")
    .option("--compare <reports...>", "compare two JSON reports: --compare a.json b.json (no model needed)")
    .option("--keep", "keep the attempts' workspaces and print where they are")
    .option("--list", "list the tasks and exit")
    .action(async (opts, cmd: Command) => {
      process.exitCode = await fromRuntime("eval", (rt) => rt.evalCommand({ ...cmd.optsWithGlobals(), ...opts }));
    });

  program
    .command("trust")
    .description("let a project folder's .deerflowrc use the keys that need trust (MCP servers, sandbox, approval, endpoints, keys…)")
    .argument("[dir]", "the project folder (default: the one whose .deerflowrc applies here)")
    .option("--list", "list the trusted folders and whether each file changed since")
    .option("--revoke", "stop trusting the folder")
    .action(async (dir: string | undefined, opts, cmd: Command) => {
      const { trustCommand } = await import("./commands/trust.js");
      process.exitCode = await trustCommand(dir, { ...cmd.optsWithGlobals(), ...opts });
    });

  (["approval", "network", "memory", "unconfined"] as const)
    .reduce((c, name) => c.addOption(sharedOption(name, "chat")), program.command("acp").description("the Agent Client Protocol agent on stdio, for editors (Zed, JetBrains, Neovim, Emacs)"))
    .action(async (opts, cmd: Command) => {
      process.exitCode = await fromRuntime("acp", (rt) => rt.acpCommand({ ...cmd.optsWithGlobals(), ...opts }, packageVersion()));
    });

  program
    .command("doctor")
    .description("check node, sqlite, the home directory, the database, the configuration and the model endpoint")
    .option("--repair", "back up a damaged database and recover every readable thread into a fresh one")
    .action(async (opts, cmd: Command) => {
      process.exitCode = await fromRuntime("doctor", (rt) => rt.doctorCommand({ ...cmd.optsWithGlobals(), ...opts }));
    });

  return program;
}

export async function main(argv: string[]): Promise<void> {
  // `deerflow threads | head -1`: the reader left. What is still to print goes nowhere; the command itself finishes
  // (a run still saves its work), rather than dying on an unhandled EPIPE with a stack trace.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE" && err.code !== "ERR_STREAM_DESTROYED") throw err;
  });
  // LangChain adds one abort listener per tool call of a turn to the run's signal: a model sending a dozen calls at
  // once is normal, and Node's "MaxListenersExceededWarning" (limit 10) would land on the user's stderr. New
  // EventTargets take this default; a real leak still shows past 100.
  EventEmitter.defaultMaxListeners = 100;
  // SIGUSR1 opens Node's inspector, and a command on the host (no sandbox, same user) could send it and then run code
  // inside deerflow (`node inspect -p <pid>`: the twenty-eighth pass's A28-12). A listener replaces that handler on
  // Node 20, which has no --disable-sigusr1; to debug deerflow, start it with `node --inspect`.
  process.on("SIGUSR1", () => {});
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through here with exit code 0; every other parse error is a usage error.
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    process.exitCode = reportFatal(err);
  }
}
