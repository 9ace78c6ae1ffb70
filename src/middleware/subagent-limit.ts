// SubagentLimit (docs/architecture.md, Subagents) — bounds delegation: at most `maxPerTurn` (default 3) `task` calls run per model turn
// (they run concurrently, so this is the concurrency cap), at most `maxPerRun` (default 6) per run. Extra task calls
// are removed from the AI message BEFORE anything runs them, and the message says which ones did not run:
// - per turn: the first N task calls and every non-task call are kept, in their order, and the text gets
//   "[SUBAGENT LIMIT] Only N task calls run per turn; these were not run: …" — the kept calls run, so the model
//   reads the note on its very next call and may issue the others again later;
// - per run: once the run has used its budget, every further task call is removed with "[SUBAGENT LIMIT REACHED]
//   This run may delegate at most 6 tasks; do the remaining work yourself or finish. Not run: …" (non-task calls
//   stay and run). The same note is used when a turn's extra calls are cut because the run's budget, not the
//   per-turn cap, ran out (e.g. 4 used, 3 asked: 2 kept). Only kept task calls count toward the budget. If the message held only task calls it is left without tool calls, and an AI message without tool calls
//   is the run's normal end: the note becomes the final reply (like TokenBudget's stop; no `jumpTo`, which would
//   skip other middleware's afterModel/afterAgent hooks). The user's next message starts a run with a fresh budget.
// The message is always rewritten in place (same id), so the history never holds a dangling or phantom call.
//
// WHY the limit is applied in wrapModelCall, not (only) in afterModel — the ordering question.
// DeerFlow lists SubagentLimit BEFORE LoopDetection (… ViewImage → SubagentLimit → LoopDetection → TokenBudget …;
// docs/architecture.md, Middleware order says keep it, and a test asserts it). after* hooks run in reverse, so with an afterModel-only limit
// LoopDetection's afterModel would run FIRST and hash and count the task calls this middleware then strips: calls
// that never run would enter its iteration hashes and its per-tool `task` count (a model that keeps retrying
// refused delegations would reach the 30/50 per-tool caps on phantom calls, and its hashes would describe
// iterations that never happened). The only afterModel-only fix is listing SubagentLimit AFTER LoopDetection,
// which contradicts DeerFlow's order. Instead the cut happens in wrapModelCall, on the model's response, before
// the graph writes it to state: SubagentLimit is listed before LoopDetection/TokenBudget, so it is the OUTER
// wrapper around them (their wrapModelCall hooks only add reminders to the request and pass the response up
// untouched) and EVERY afterModel hook — LoopDetection's included, whatever the list order — only ever sees the
// calls that will really run. What the owner should do: nothing; keep DeerFlow's order. (A middleware listed
// AFTER SubagentLimit that inspects the raw response inside its own wrapModelCall still sees the uncut calls.)
// WHY afterModel as well: the per-run counter is a state field and is counted here, from the task calls left in
// the final AI message. In DeerFlow's order this hook runs after LoopDetection's, TokenBudget's and the
// finish-reason guards', so calls they stripped are not counted. (Listed elsewhere, a guard may strip calls after
// they were counted; every such guard ends the run, and the counter is per run, so nothing is lost.) The same
// afterModel also re-applies the limit, idempotently, as a safety net for a message that reached state some other
// way; after wrapModelCall's cut it never changes anything.
// WHY beforeAgent: the per-run counter starts at 0 at every run start.
import { readRunConfigurable } from "../vocabulary/configurable.js";
import { AIMessage, type ToolCall } from "@langchain/core/messages";
import { StateSchema } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { z } from "zod";
import { THREAD_STATE_VALUES } from "../state/thread-state.js";
import { keepToolCalls } from "./util/strip-tool-calls.js";

export interface SubagentLimitOptions {
  /** Task calls kept from one model turn (they run concurrently). Default 3. */
  maxPerTurn?: number;
  /** Task calls one run may make in all (counting only calls that were kept). Default 6. */
  maxPerRun?: number;
  /** Name of the delegation tool. Default "task". */
  toolName?: string;
}

export const DEFAULT_MAX_TASKS_PER_TURN = 3;
export const DEFAULT_MAX_TASKS_PER_RUN = 6;
export const SUBAGENT_LIMIT_PREFIX = "[SUBAGENT LIMIT]";
export const SUBAGENT_LIMIT_REACHED = "[SUBAGENT LIMIT REACHED]";

export const subagentLimitState = new StateSchema({
  /** Task calls kept (i.e. run) in this run so far; reset at each run start. */
  subagent_tasks_used: z.number().default(0),
  delegations: THREAD_STATE_VALUES.delegations,
});

/** "<description>" (<subagent_type>) for the note that lists calls that did not run. */
function describeCall(call: ToolCall): string {
  const args = (call.args ?? {}) as Record<string, unknown>;
  const raw = typeof args.description === "string" && args.description.trim() ? args.description.trim() : typeof args.prompt === "string" ? args.prompt.trim() : "";
  const oneLine = raw.replace(/\s+/g, " ");
  const desc = oneLine.length > 80 ? `${oneLine.slice(0, 79)}…` : oneLine;
  const type = typeof args.subagent_type === "string" && args.subagent_type ? args.subagent_type : "?";
  return `"${desc || call.id || "task"}" (${type})`;
}

export interface SubagentLimitDecision {
  /** The rewritten message, or null when it is within the limits (left as it is). */
  message: AIMessage | null;
  /** Task calls left in the message (the ones that will run). */
  kept: number;
  /** Task calls removed. */
  dropped: number;
}

/**
 * Applies the limits to one AI message, given `used` task calls already made in this run. Pure and idempotent: a
 * message it returned, judged again with the same `used`, is left as it is.
 */
export function applySubagentLimit(msg: AIMessage, used: number, limits: { maxPerTurn: number; maxPerRun: number; toolName?: string }): SubagentLimitDecision {
  const toolName = limits.toolName ?? "task";
  const calls = msg.tool_calls ?? [];
  const tasks = calls.filter((c) => c.name === toolName);
  const runLeft = Math.max(0, limits.maxPerRun - used);
  const allowed = Math.min(limits.maxPerTurn, runLeft);
  if (tasks.length <= allowed) return { message: null, kept: tasks.length, dropped: 0 };

  const keptTasks = new Set(tasks.slice(0, allowed));
  const notRun = tasks.slice(allowed);
  const keep = calls.filter((c) => c.name !== toolName || keptTasks.has(c));
  const list = notRun.map(describeCall).join("; ");
  // The run's budget is the binding limit when nothing is left of it after this turn.
  const note =
    allowed === runLeft
      ? `${SUBAGENT_LIMIT_REACHED} This run may delegate at most ${limits.maxPerRun} tasks; do the remaining work yourself or finish. Not run: ${list}.`
      : `${SUBAGENT_LIMIT_PREFIX} Only ${limits.maxPerTurn} task calls run per turn; these were not run: ${list}. Issue them again in a later turn if they are still needed (this run can delegate ${runLeft - allowed} more).`;
  return { message: keepToolCalls(msg, keep, note), kept: allowed, dropped: notRun.length };
}

function checkLimit(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`SubagentLimit: ${name} must be a positive integer (got ${String(value)}).`);
  return value;
}

export function subagentLimitMiddleware(options: SubagentLimitOptions = {}) {
  const limits = {
    maxPerTurn: checkLimit("maxPerTurn", options.maxPerTurn ?? DEFAULT_MAX_TASKS_PER_TURN),
    maxPerRun: checkLimit("maxPerRun", options.maxPerRun ?? DEFAULT_MAX_TASKS_PER_RUN),
    toolName: options.toolName ?? "task",
  };

  return createMiddleware({
    name: "SubagentLimit",
    stateSchema: subagentLimitState,
    beforeAgent: () => ({ subagent_tasks_used: 0 }),
    wrapModelCall: async (request, handler) => {
      const response = await handler(request);
      if (!AIMessage.isInstance(response)) return response; // a Command (e.g. structured output): not ours to cut
      const { message } = applySubagentLimit(response, request.state.subagent_tasks_used ?? 0, limits);
      return message ?? response;
    },
    afterModel: (state, runtime) => {
      const last = state.messages.at(-1);
      if (!last || !AIMessage.isInstance(last) || (last.tool_calls ?? []).length === 0) return undefined;
      const used = state.subagent_tasks_used ?? 0;
      const { message, kept } = applySubagentLimit(last, used, limits);
      if (kept === 0 && message === null) return undefined;
      // The ledger shows a delegation from its start: the task tool can only write the final entry when it returns.
      const now = new Date().toISOString();
      const runId = readRunConfigurable(runtime.configurable).runId ?? "";
      const started = ((message ?? last).tool_calls ?? [])
        .filter((c) => c.name === (limits.toolName ?? "task") && c.id)
        .map((c) => {
          const args = (c.args ?? {}) as Record<string, unknown>;
          return { id: c.id!, run_id: runId, description: String(args.description ?? ""), subagent_type: String(args.subagent_type ?? ""), status: "running" as const, created_at: now };
        });
      return { subagent_tasks_used: used + kept, ...(started.length ? { delegations: started } : {}), ...(message ? { messages: [message] } : {}) };
    },
  });
}
