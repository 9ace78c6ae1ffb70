// `deerflow eval`: run the task suite against the configured model (or -m), print a table per attempt and optionally
// the JSON report; `--compare a.json b.json` sets two reports side by side. Each attempt is a `deerflow run` in a
// throwaway repository (src/eval/), with a private data directory so the user's threads, memory and skills neither
// leak into the measurement nor receive it. MCP servers are not started: a task must not depend on the machine.
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { loadConfig } from "../../config/load.js";
import { refuseUntrusted } from "../../config/project-trust.js";
import { trustHomeOf } from "../../config/trust-store.js";
import { ExitCode, UsageError } from "../../errors.js";
import { forTerminal, jsonText } from "../../vocabulary/terminal-text.js";
import { requireModelOrDiscover } from "../discovered-model.js";
import type { GlobalOptions } from "../main.js";
import { reportFatal } from "../report-error.js";

export interface EvalOptions extends GlobalOptions {
  tasks?: string;
  suite?: string;
  repeat?: number;
  parallel?: number;
  json?: boolean;
  out?: string;
  record?: string;
  compare?: string[];
  yes?: boolean;
  timeout?: number;
  keep?: boolean;
  list?: boolean;
  /** --dangerously-run-unconfined: --yes allowed without bubblewrap. */
  dangerouslyRunUnconfined?: boolean;
}

const err = (line: string) => process.stderr.write(`${forTerminal(line)}\n`);

function assertWritable(dir: string, flag: string): void {
  try {
    if (!statSync(dir).isDirectory()) throw new Error("not a directory");
    accessSync(dir, constants.W_OK);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === "ENOENT" ? "does not exist" : (e as NodeJS.ErrnoException).code === "EACCES" ? "is not writable" : (e as Error).message;
    throw new UsageError(`${flag}: ${dir} ${why}.`, "Choose a folder you can write to.");
  }
}

async function compare(files: string[]): Promise<number> {
  if (files.length !== 2) throw new UsageError(`--compare takes two reports (got ${files.length}).`, "deerflow eval --compare a.json b.json");
  const { formatComparison, readReport } = await import("../../eval/report.js");
  process.stdout.write(`${formatComparison(readReport(files[0]!), readReport(files[1]!), [files[0]!, files[1]!])}\n`);
  return ExitCode.ok;
}

export async function evalCommand(opts: EvalOptions): Promise<number> {
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigint);
  let scratch: string | undefined;
  let runtimeLoaded = false;
  try {
    if (opts.compare) return await compare(opts.compare);
    const { DEFAULT_TASKS_DIR, loadTasks, taskIds } = await import("../../eval/task.js");
    const only = opts.tasks
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (opts.tasks !== undefined && !only?.length) throw new UsageError("--tasks is empty.", "Name task ids separated by commas (see `deerflow eval --list`).");
    const suiteRoot = resolve(opts.suite ?? DEFAULT_TASKS_DIR);
    const tasks = loadTasks(suiteRoot, only);
    if (opts.list) {
      for (const t of tasks) process.stdout.write(`${t.id}\t${t.kind}\t${t.title}\n`);
      return ExitCode.ok;
    }
    // --yes without bubblewrap approves the agent's guarded commands on this host: only when said so (unconfined.ts).
    if (opts.yes) (await import("../../sandbox/unconfined.js")).assertAutoApprovalConfined({ approval: "auto-edit", yes: true, allowUnconfined: opts.dangerouslyRunUnconfined });
    // Where the results go is checked before an hour of model calls, not after.
    const out = opts.out ? resolve(opts.out) : undefined;
    if (out) assertWritable(dirname(out), "--out");
    const record = opts.record ? resolve(opts.record) : undefined;
    if (record) {
      // Only the last folder is created: Node's recursive mkdir never returns for some paths (/proc/x on Node 20).
      if (!existsSync(record)) {
        assertWritable(dirname(record), "--record");
        try {
          mkdirSync(record);
        } catch (e) {
          throw new UsageError(`--record: cannot create ${record} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`, "Choose a folder you can write to.");
        }
      }
      assertWritable(record, "--record");
    }
    scratch = mkdtempSync(join(tmpdir(), "deerflow-eval-"));
    // The attempts keep their data in the scratch home; trust is read where the user keeps it.
    const trustHome = trustHomeOf({ flag: opts.home, env: process.env, cwd: process.cwd(), userHome: process.env.HOME ?? homedir() });
    const base = loadConfig({ flags: { home: join(scratch, "home"), model: opts.model, defaultApproval: "auto-edit", noMemory: true }, trustHome });
    refuseUntrusted(base.untrusted);
    // The agent's shell never sees the task folders (their hidden checks, and the scripted solutions of the built-in
    // suite) nor the other attempts' folders in the scratch directory: only its own workspace is bound again.
    const hidden = [...taskIds(suiteRoot).map((id) => join(suiteRoot, id)), scratch];
    const config = { ...base, mcp: { ...base.mcp, servers: {} }, sandbox: { ...base.sandbox, hidden } };
    if (!(await import("../../sandbox/run-shell.js")).findBwrap())
      err(
        "deerflow eval: bubblewrap is not available, so the agent's shell and the checks (which run the agent's code) run unconfined, and the agent could read the tasks' hidden checks; install the `bubblewrap` package for a fair measurement.",
      );
    const model = await requireModelOrDiscover(config);
    runtimeLoaded = true;
    const { runSuite } = await import("../../eval/suite.js");
    const { formatReport } = await import("../../eval/report.js");
    const repeat = opts.repeat ?? 1;
    err(`deerflow eval: ${tasks.length} task${tasks.length === 1 ? "" : "s"} × ${repeat} with ${model.name} (${model.model} at ${model.baseUrl})`);
    const report = await runSuite(
      tasks,
      { config, model, scratch, approveGuarded: opts.yes ?? false, timeoutSeconds: opts.timeout, record, signal: controller.signal },
      {
        repeat,
        parallel: opts.parallel ?? 1,
        onResult: (r) => err(`${r.pass ? "pass" : "FAIL"}  ${r.task}${repeat > 1 ? ` #${r.attempt}` : ""}  (${r.turns} turns, ${(r.wall_ms / 1000).toFixed(1)} s, ${r.stop_reason})`),
      },
    );
    if (controller.signal.aborted) {
      err("deerflow: eval interrupted; the report covers the attempts that finished.");
    }
    if (out) writeFileSync(out, `${jsonText(report, 2)}\n`); // the same escaping as stdout: it is read in a terminal too
    process.stdout.write(opts.json ? `${jsonText(report, 2)}\n` : `${formatReport(report)}\n`);
    if (report.results.length < tasks.length * repeat && !controller.signal.aborted) err("deerflow: the model endpoint failed before it ever answered; the remaining attempts were not run.");
    if (opts.keep) err(`The workspaces are kept in ${scratch}.`);
    // Every attempt failed to reach the model: that is the endpoint, not the agent (exit 1 with the cause).
    const errors = report.results.filter((r) => r.error && r.stop_reason === "error");
    if (report.results.length > 0 && errors.length === report.results.length) {
      err(`deerflow: every attempt failed: ${errors[0]!.error}`);
      return ExitCode.runtime;
    }
    if (controller.signal.aborted) return ExitCode.interrupted;
    return report.summary.passed === report.summary.attempts ? ExitCode.ok : ExitCode.goalNotAchieved;
  } catch (e) {
    return reportFatal(e);
  } finally {
    if (runtimeLoaded) {
      await (await import("../../sandbox/run-shell.js")).closeShellSessions();
      await (await import("../../runtime/thread-runtime.js")).ThreadRuntime.closeAll();
    }
    if (scratch && !opts.keep) rmSync(scratch, { recursive: true, force: true });
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
  }
}
