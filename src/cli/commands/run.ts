// `deerflow run [prompt]`: one headless run. The answer goes to stdout, progress to stderr; the exit code says how
// it ended (docs/architecture.md). Never waits on a user who is not there: a terminal's stdin is never read; piped
// stdin is the prompt, or with an argument the material the instruction is about (piped-input.ts).
import { homedir } from "node:os";
import { loadConfig } from "../../config/load.js";
import { refuseUntrusted } from "../../config/project-trust.js";
import { requireModelOrDiscover } from "../discovered-model.js";
import { assertAutoApprovalWorkspace, assertSafeSandboxPaths } from "../../sandbox/workspace-check.js";
import { runWorkspace, workspaceNotices } from "../run-workspace.js";
import { forTerminal } from "../../vocabulary/terminal-text.js";
import { ExitCode, UsageError, formatErrorLine } from "../../errors.js";
import { type CheckedAs, atPathUploads, checkedUploads } from "../../runtime/at-path-uploads.js";
import { skillCatalogFor, skillInvocation } from "../../skills/catalog.js";
import { commandTurn } from "../command-turn.js";
import { submitPrompt } from "../../runtime/prompt-hooks.js";
import type { RunEvent } from "../../runtime/events.js";
import type { RunResult } from "../../runtime/run-thread.js";
import { type ApprovalMode, isGuardStopReason } from "../../vocabulary/index.js";
import type { GlobalOptions } from "../main.js";
import { exitCodeOf, reportFatal } from "../report-error.js";
import { createPrinter, type OutputFormat } from "../output/printer.js";
import { runPrompt } from "../piped-input.js";
import { approvalFlag } from "../shared-options.js";

export interface RunOptions extends GlobalOptions {
  thread?: string;
  continue?: boolean;
  workspace?: string;
  /** --scratch: a new thread works in a fresh per-thread folder instead of the current directory. */
  scratch?: boolean;
  upload?: string[];
  approval?: ApprovalMode;
  yes?: boolean;
  /** --fail-on-denial: a run that would exit 0 exits 6 when a tool call was denied or blocked. */
  failOnDenial?: boolean;
  /** --permission-mode: --approval by Claude Code's names. */
  permissionMode?: ApprovalMode;
  maxTurns?: number;
  goal?: string;
  inputId?: string;
  timeout?: number;
  maxContinuations?: number;
  outputFormat: OutputFormat;
  /** false with --no-network. */
  network?: boolean;
  /** false with --no-memory. */
  memory?: boolean;
  allowDangerousWorkspace?: boolean;
  /** --dangerously-run-unconfined: --yes / yolo allowed without bubblewrap. */
  dangerouslyRunUnconfined?: boolean;
}

/** Idempotency keys are short identifiers (as Stripe's, at most 255 characters), not payloads. */
const MAX_INPUT_ID_LENGTH = 255;

export function exitCodeFor(result: RunResult): number {
  if (result.stop_reason === "clarification") return ExitCode.inputRequired;
  // Guards: loops, budgets, turn caps, and answers cut off by the model's output limit or a content filter (their
  // tool calls were not run, so the work is unfinished).
  if (isGuardStopReason(result.stop_reason)) return ExitCode.guardStop;
  return ExitCode.ok;
}

/**
 * A denial leaves the exit code alone unless asked (--fail-on-denial): a denied action is the approval rules working,
 * and the model usually carries on another way; a CI job that must not pass with anything refused opts in. Only a
 * run that would exit 0 becomes 6: a clarification, a guard or a failure says more.
 */
function withDenials(code: number, printer: { denials(): unknown[] }, opts: RunOptions): number {
  return code === ExitCode.ok && opts.failOnDenial && printer.denials().length > 0 ? ExitCode.denied : code;
}

export async function runCommand(words: string[], opts: RunOptions): Promise<number> {
  const printer = createPrinter(opts.outputFormat, process.stdout, process.stderr);
  const controller = new AbortController();
  let runtimeLoaded = false;
  // A second signal while the run winds down also stops a snapshot's git that is stuck (a FIFO in the workspace).
  const onSigint = () => {
    if (controller.signal.aborted) void import("../../snapshots/git.js").then((g) => g.stopSnapshotGit());
    controller.abort();
  };
  // Ctrl+C, a supervisor's SIGTERM or a closed terminal's SIGHUP stops the run cleanly: status interrupted, exit 130,
  // one line saying how to continue, the thread usable (a SIGHUP used to end the process at once: exit 129, no line).
  // Kept for the whole run (not once): a second signal while the run winds down must not kill it half-recorded.
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigint);
  process.on("SIGHUP", onSigint);
  try {
    if (opts.thread && opts.continue) throw new UsageError("Use either --thread <id> or --continue, not both.");
    // Headless, edits apply without asking (auto-edit); guarded shell commands are denied unless --yes.
    const config = loadConfig({
      flags: { home: opts.home, model: opts.model, approval: approvalFlag(opts), defaultApproval: "auto-edit", noNetwork: opts.network === false, noMemory: opts.memory === false },
    });
    refuseUntrusted(config.untrusted);
    const model = await requireModelOrDiscover(config);
    if (!config.sandbox.network || config.sandbox.require) (await import("../../sandbox/run-shell.js")).assertShellUsable(config.sandbox);
    if (opts.yes || config.approval === "yolo")
      (await import("../../sandbox/unconfined.js")).assertAutoApprovalConfined({ approval: config.approval, yes: opts.yes, allowUnconfined: opts.dangerouslyRunUnconfined });
    const start = runWorkspace(opts, config.home);
    assertAutoApprovalWorkspace(start.workspace, config.home, opts.yes === true || config.approval === "yolo");
    assertSafeSandboxPaths(config.sandbox, { userHome: process.env.HOME ?? homedir(), dataDir: config.home });
    const { prompt, typed } = await runPrompt(words, process.stdin, model, (line) => process.stderr.write(`deerflow: ${line}\n`));
    if (opts.goal !== undefined && !opts.goal.trim()) throw new UsageError("--goal needs an objective.", 'Say what must be true when the work is done: --goal "…".');
    if (opts.goal !== undefined && config.approval === "plan")
      throw new UsageError("--goal cannot work in plan mode: nothing changes until a plan is approved.", "Plan first (--permission-mode plan), then run --goal on that --thread in another mode.");
    // An unset shell variable (`--input-id "$ID"`) must not quietly turn idempotency off.
    if (opts.inputId !== undefined && !opts.inputId.trim()) throw new UsageError("--input-id is empty.", "Pass the key your script uses for this input, or drop --input-id.");
    if (opts.inputId !== undefined && opts.inputId.length > MAX_INPUT_ID_LENGTH)
      throw new UsageError(`--input-id is longer than ${MAX_INPUT_ID_LENGTH} characters.`, "Use a short key, e.g. a UUID or a hash of the input.");
    if (!prompt && opts.goal === undefined) throw new UsageError("No prompt given.", 'Pass it as an argument (deerflow run "…") or pipe it on stdin.');
    // `deerflow run "/<skill> …"` activates an installed skill, as typing it in the chat does.
    const skill = typed.startsWith("/") ? skillInvocation(typed, skillCatalogFor({ home: config.home, cwd: process.cwd() })) : undefined;
    const notices = workspaceNotices(start, (line) => process.stderr.write(`deerflow: ${forTerminal(line)}\n`));
    // `deerflow run "/name args"` sends a custom command (never one named like a built-in: the chat's names hold here).
    const turn = await commandTurn(typed, prompt, {
      config,
      thread: opts.thread,
      continueLatest: opts.continue,
      workspace: start.workspace,
      signal: controller.signal,
      note: (line) => process.stderr.write(`deerflow: ${forTerminal(line)}\n`),
    });
    const sessionStart = opts.thread || opts.continue ? "resume" : "startup";
    const submitted = await submitPrompt(config, turn.prompt, { threadId: turn.threadId ?? opts.thread, signal: controller.signal, sessionStart });
    const checkedAs: CheckedAs = {};
    const request = {
      config,
      model,
      prompt: submitted.prompt,
      skill: skill?.name,
      threadId: turn.threadId ?? opts.thread,
      continueLatest: turn.threadId ? false : opts.continue,
      workspace: start.workspace,
      uploads: [...checkedUploads(opts.upload ?? [], process.cwd(), checkedAs), ...atPathUploads(turn.attach, process.cwd(), checkedAs)],
      uploadsCheckedAs: checkedAs,
      approveGuarded: opts.yes ?? false,
      maxTurns: opts.maxTurns,
      inputId: opts.inputId,
      timeoutSeconds: opts.timeout ?? config.runTimeoutSeconds,
      signal: controller.signal,
      onEvent: submitted.report((e: RunEvent) => {
        notices(e);
        printer.event(e);
      })!,
    };
    // LangChain loads only once the request is known to be valid: usage errors answer instantly.
    runtimeLoaded = true;
    // What earlier runs taught is extracted now (bounded), so this run's reminder shows it; never at our exit.
    const { START_DRAIN_MS, drainMemoryQueue } = await import("../../runtime/memory-drain.js");
    await drainMemoryQueue(config, model, { timeoutMs: START_DRAIN_MS, signal: controller.signal }).catch(() => undefined);
    if (opts.goal !== undefined) {
      const { runGoalThread } = await import("../../runtime/run-goal.js");
      const g = await runGoalThread({ ...request, objective: opts.goal, maxContinuations: opts.maxContinuations });
      printer.result(g.result, g.goal);
      return withDenials(g.exitCode, printer, opts);
    }
    const { runThread } = await import("../../runtime/run-thread.js");
    const result = await runThread(request);
    printer.result(result);
    return withDenials(exitCodeFor(result), printer, opts);
  } catch (err) {
    printer.failure(err);
    if (opts.outputFormat === "text") return reportFatal(err);
    // json / stream-json already carry the error on stdout; stderr still gets the one line.
    process.stderr.write(`deerflow: ${forTerminal(formatErrorLine(err))}\n`);
    return exitCodeOf(err);
  } finally {
    // The run's sandbox, background jobs and MCP servers end with it.
    await (await import("../../sandbox/run-shell.js")).closeShellSessions();
    if (runtimeLoaded) await (await import("../../mcp/hub.js")).closeMcpServers();
    // A cleanly closed database leaves no -wal file, so the next open skips the integrity check.
    if (runtimeLoaded) await (await import("../../runtime/thread-runtime.js")).ThreadRuntime.closeAll();
    if (runtimeLoaded) (await import("../../runtime/memory-drain.js")).closeMemory();
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
    process.off("SIGHUP", onSigint);
  }
}
