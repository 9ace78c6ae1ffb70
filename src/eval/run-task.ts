// One attempt at one task: prepare its repository, run the request through the same runtime `deerflow run` uses
// (runThread: the lead agent, its guards, approvals, the sandbox, compaction), measure it from the run's event
// stream, then hand the workspace to the checker. Nothing here re-implements the agent loop.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ResolvedConfig, ResolvedModel } from "../config/load.js";
import { ModelUnavailableError, findDeerflowError, formatErrorLine } from "../errors.js";
import type { PermissionDenial, RunEvent, TokenUsage } from "../runtime/events.js";
import { runThread } from "../runtime/run-thread.js";
import { shellSettingsFromConfig } from "../sandbox/shell-settings.js";
import { isGuardStopReason } from "../vocabulary/stop-reasons.js";
import { checkAttempt, type RunOutcome } from "./check.js";
import { startRecordingProxy } from "./recorder.js";
import type { EvalTask } from "./task.js";
import { prepareWorkspace } from "./workspace.js";

export interface EvalContext {
  /** The resolved configuration, its home a private data directory of this eval. */
  config: ResolvedConfig;
  model: ResolvedModel;
  /** Where each attempt gets its folder (workspace/ and check/). */
  scratch: string;
  /** --yes: approve guarded shell commands (default: denied, as in `deerflow run`). */
  approveGuarded: boolean;
  /** Caps every task's own time limit (seconds). */
  timeoutSeconds?: number;
  /** --record: the folder each attempt's model exchanges are written to. */
  record?: string;
  signal?: AbortSignal;
}

export interface AttemptResult {
  task: string;
  kind: string;
  attempt: number;
  pass: boolean;
  failures: string[];
  /** Model calls of the lead agent. */
  turns: number;
  tokens: TokenUsage;
  wall_ms: number;
  status: string;
  stop_reason: string;
  /** What stopped or refused the agent: a guard's stop reason, "blocked" or "denied" (a refused command); null: none. */
  guard: string | null;
  /** Tool calls by name. */
  tools: Record<string, number>;
  changed: string[];
  /** The run's error line, when it failed (model unreachable, time limit). */
  error?: string;
  /** The model endpoint failed (unreachable, key or model refused), as it would for every attempt. */
  endpoint_error?: boolean;
}

/** A refused call's guard (its structured denial, sandbox/permission-denial.ts): it fired even when the run went on. */
const refusalOf = (d: PermissionDenial | undefined): string | null => (d ? (d.denied_by === "policy" ? "blocked" : "denied") : null);

/** What the event stream says about a run: turns, tools, refusals, compaction. */
function observer() {
  const seen = { runId: "", turns: 0, tools: [] as string[], refusal: null as string | null, compacted: false };
  const onEvent = (e: RunEvent) => {
    if (e.type === "run.started") seen.runId = e.run_id;
    else if (e.type === "message.completed" && e.run_id === seen.runId) seen.turns++;
    else if (e.type === "tool.started" && e.run_id === seen.runId) seen.tools.push(e.name);
    else if (e.type === "tool.completed" && e.run_id === seen.runId && !seen.refusal) seen.refusal = refusalOf(e.denial);
    else if (e.type === "context.compacted") seen.compacted = true;
  };
  return { seen, onEvent };
}

const ZERO: TokenUsage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };

/** One attempt, checked; undefined when the eval itself was interrupted (Ctrl+C) before the attempt finished. */
export async function runAttempt(task: EvalTask, attempt: number, ctx: EvalContext): Promise<AttemptResult | undefined> {
  const dir = join(ctx.scratch, `${task.id}-${attempt}`);
  const workspace = join(dir, "workspace");
  const checkDir = join(dir, "check");
  mkdirSync(checkDir, { recursive: true });
  const prepared = await prepareWorkspace(task, workspace);

  const proxy = ctx.record ? await startRecordingProxy(ctx.model.baseUrl) : undefined;
  const model: ResolvedModel = { ...ctx.model, ...(task.contextWindow ? { contextWindow: task.contextWindow } : {}), ...(proxy ? { baseUrl: proxy.url } : {}) };
  const { seen, onEvent } = observer();
  const started = Date.now();
  let run: { status: string; stop_reason: string; final_text: string; usage: TokenUsage; error?: string; endpoint?: boolean };
  try {
    const r = await runThread({
      config: ctx.config,
      model,
      prompt: task.prompt,
      workspace,
      approveGuarded: ctx.approveGuarded,
      maxTurns: task.maxTurns,
      timeoutSeconds: Math.min(task.timeoutSeconds, ctx.timeoutSeconds ?? Infinity),
      signal: ctx.signal,
      onEvent,
    });
    run = { status: r.status, stop_reason: r.stop_reason, final_text: r.final_text, usage: r.usage };
  } catch (err) {
    const typed = findDeerflowError(err) as { status?: string } | undefined;
    const stopped = typed?.status === "timeout" || typed?.status === "interrupted" ? typed.status : undefined;
    run = { status: stopped ?? "error", stop_reason: stopped ?? "error", final_text: "", usage: ZERO, error: formatErrorLine(err), endpoint: typed instanceof ModelUnavailableError };
  } finally {
    await proxy?.close();
  }
  const wall_ms = Date.now() - started;
  if (proxy && ctx.record) {
    mkdirSync(ctx.record, { recursive: true });
    const recording = { task: task.id, attempt, model: ctx.model.model, recorded_at: new Date(started).toISOString(), stop_reason: run.stop_reason, exchanges: proxy.exchanges };
    writeFileSync(join(ctx.record, `${task.id}-${attempt}.json`), `${JSON.stringify(recording, null, 2)}\n`);
  }

  // Cut by the user's Ctrl+C, not by the agent: neither a result nor worth a check (which could take minutes).
  if (ctx.signal?.aborted && run.status === "interrupted") return undefined;

  const outcome: RunOutcome = { stop_reason: run.stop_reason, final_text: run.final_text, tools: seen.tools, compacted: seen.compacted };
  const check = await checkAttempt(task, workspace, prepared, outcome, checkDir, { shell: shellSettingsFromConfig(ctx.config), checkDir });
  const tools: Record<string, number> = {};
  for (const t of seen.tools) tools[t] = (tools[t] ?? 0) + 1;
  return {
    task: task.id,
    kind: task.kind,
    attempt,
    pass: check.pass,
    failures: run.error ? [run.error, ...check.failures] : check.failures,
    turns: seen.turns,
    tokens: run.usage,
    wall_ms,
    status: run.status,
    stop_reason: run.stop_reason,
    guard: isGuardStopReason(run.stop_reason) ? run.stop_reason : seen.refusal,
    tools,
    changed: check.changed,
    ...(run.error ? { error: run.error } : {}),
    ...(run.endpoint ? { endpoint_error: true } : {}),
  };
}
