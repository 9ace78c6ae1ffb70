// What goes into a run and what comes out: the prompt (after a skill's text when the user activated one), the result
// read from the thread's state, and what an `--input-id` recorded, so a repeated id answers with its run's result
// instead of calling the model again. The id is recorded twice: as "started" in the input's own checkpoint write (the
// same transaction as the user's message), then with the result once the run succeeded. A process killed between the
// two leaves the "started" record: a retry then answers from the thread when the run's answer is there, and
// otherwise continues the thread (the input replaces itself in place; finished tool calls keep their results).
import { createHash } from "node:crypto";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { UsageError } from "../errors.js";
import { skillContextEntry, skillMessage } from "../skills/activation.js";
import type { SkillCatalog } from "../skills/catalog.js";
import { findPendingClarification, isInterruptedMessage } from "../vocabulary/message-markers.js";
import { planOf } from "../vocabulary/plan-mode.js";
import { messageText } from "../vocabulary/message-text.js";
import type { StopReason } from "../vocabulary/stop-reasons.js";
import type { PermissionDenial, TokenUsage } from "./events.js";
import type { OpenedThread } from "./open-thread.js";
import type { RunRequest, RunResult } from "./run-thread.js";

export type ThreadValues = Record<string, unknown> & { messages?: BaseMessage[] };

/** What `applied_run_inputs[inputId]` records once the input's run succeeded. */
interface AppliedInput {
  run_id: string;
  /** sha256 of the prompt it applied (absent in records from before it was kept): the same id with another prompt is refused. */
  prompt_sha256?: string;
  stop_reason: StopReason;
  final_text: string;
  usage: TokenUsage;
  /** The run's refused tool calls (absent in records from before they were kept). */
  permission_denials?: PermissionDenial[];
}

/** What `applied_run_inputs[inputId]` records with the input itself, before the run has a result. */
interface StartedInput {
  run_id: string;
  prompt_sha256: string;
  started: true;
}

type InputRecord = AppliedInput | StartedInput;

const isStarted = (r: InputRecord): r is StartedInput => (r as StartedInput).started === true;

/** The id of the user message a run adds: the input id when there is one (a retry replaces it in place). */
export const inputMessageId = (inputId: string | undefined, runId: string): string => `input-${inputId ?? runId}`;

/** The run's input: the prompt, preceded by a skill's text when the user activated one (`/<skill>`). */
export function userActivation(catalog: SkillCatalog, name: string | undefined, prompt: HumanMessage, runId: string): Record<string, unknown> {
  if (!name) return { messages: [prompt] };
  const skill = catalog.skills.find((s) => s.name === name);
  if (!skill) throw new UsageError(`There is no skill named "${name}".`, "List the installed skills with /skills (skills live in .deerflow/skills/<name>/SKILL.md or ~/.deerflow/skills/).");
  const message = skillMessage(skill, "user");
  message.id = `skill-${runId}`;
  return { messages: [message, prompt], skill_context: [skillContextEntry(skill, 0)] };
}

/** What identifies an input's prompt in `applied_run_inputs`. */
function promptDigest(prompt: RunRequest["prompt"]): string {
  return createHash("sha256")
    .update(typeof prompt === "string" ? prompt : messageText(prompt))
    .digest("hex");
}

/** The part of the run's input that records `inputId` as started (written with the user's message, in one checkpoint). */
export function startedInput(values: ThreadValues, inputId: string, prompt: RunRequest["prompt"], runId: string): Record<string, unknown> {
  const applied = (values.applied_run_inputs as Record<string, InputRecord> | null | undefined) ?? {};
  const entry: StartedInput = { run_id: runId, prompt_sha256: promptDigest(prompt), started: true };
  return { applied_run_inputs: { ...applied, [inputId]: entry } };
}

/** The state update that records this input with its result (in the thread's state, so it survives with the checkpoint). */
export function recordedInput(values: ThreadValues, inputId: string, prompt: RunRequest["prompt"], r: RunResult): Record<string, unknown> {
  const applied = (values.applied_run_inputs as Record<string, InputRecord> | null | undefined) ?? {};
  const entry: AppliedInput = { run_id: r.run_id, prompt_sha256: promptDigest(prompt), stop_reason: r.stop_reason, final_text: r.final_text, usage: r.usage, permission_denials: r.permission_denials };
  return { applied_run_inputs: { ...applied, [inputId]: entry } };
}

/**
 * A repeated `--input-id` whose run succeeded: its recorded result (with its run's events), or undefined (run it).
 * `answered`: the result was read from a run that was killed after its answer but before its result was recorded
 * (the caller records it).
 */
export function repeatedRun(values: ThreadValues, opened: OpenedThread, req: RunRequest & { inputId: string }): (RunResult & { answered?: true }) | undefined {
  const entry = (values.applied_run_inputs as Record<string, InputRecord> | null | undefined)?.[req.inputId];
  if (!entry) return undefined;
  if (entry.prompt_sha256 && entry.prompt_sha256 !== promptDigest(req.prompt)) {
    // A script reusing a key for new work is a bug in the script; answering with the old result would hide it.
    throw new UsageError(
      `Input id ${JSON.stringify(req.inputId)} was already applied on thread ${opened.threadId} (run ${entry.run_id}) to a different prompt.`,
      "Use a new --input-id for a new prompt; repeat the original prompt to get its recorded result.",
    );
  }
  const applied = isStarted(entry) ? answeredInput(values, req.inputId, entry.run_id) : entry;
  if (!applied) return undefined;
  const messages = values.messages ?? [];
  const clarification = applied.stop_reason === "clarification" ? (findPendingClarification(messages) ?? undefined) : undefined;
  const thread_usage = (values.thread_usage as TokenUsage | undefined) ?? applied.usage;
  const r: RunResult = {
    thread_id: opened.threadId,
    run_id: applied.run_id,
    status: "success",
    stop_reason: applied.stop_reason,
    final_text: applied.final_text,
    usage: applied.usage,
    thread_usage,
    permission_denials: applied.permission_denials ?? [],
    clarification,
    messages,
    repeated: true,
  };
  req.onEvent?.({ type: "run.started", thread_id: r.thread_id, run_id: r.run_id, new_thread: false, workspace: opened.paths.workspace_path });
  req.onEvent?.({
    type: "run.completed",
    thread_id: r.thread_id,
    run_id: r.run_id,
    status: r.status,
    stop_reason: r.stop_reason,
    final_text: r.final_text,
    usage: r.usage,
    thread_usage,
    permission_denials: r.permission_denials,
  });
  return isStarted(entry) ? { ...r, answered: true } : r;
}

/**
 * A started input's result when its run got as far as an answer: the thread's last word after the input is a finished
 * answer (or a pending question), and no later input followed. Undefined when the run was cut before that.
 */
function answeredInput(values: ThreadValues, inputId: string, runId: string): AppliedInput | undefined {
  const messages = values.messages ?? [];
  const id = inputMessageId(inputId, runId);
  let at = messages.length - 1;
  while (at >= 0 && messages[at]!.id !== id) at--;
  if (at < 0) return undefined;
  const after = messages.slice(at + 1);
  if (after.some((m) => HumanMessage.isInstance(m) && m.id?.startsWith("input-"))) return undefined;
  const last = messages.at(-1);
  const finished = (AIMessage.isInstance(last) && !last.tool_calls?.length && !isInterruptedMessage(last)) || planOf(last) !== undefined;
  if (!finished && !findPendingClarification(messages)) return undefined;
  const usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  for (const m of after) {
    const u = AIMessage.isInstance(m) ? m.usage_metadata : undefined;
    if (!u) continue;
    usage.input_tokens += u.input_tokens;
    usage.output_tokens += u.output_tokens;
    usage.total_tokens += u.total_tokens;
  }
  const r = resultOf(values, "", runId, usage, []);
  return { run_id: runId, stop_reason: r.stop_reason, final_text: r.final_text, usage };
}

/** The run's result from the thread's state after it, with the tool calls refused on the way. */
export function resultOf(values: ThreadValues, threadId: string, runId: string, usage: TokenUsage, permission_denials: PermissionDenial[]): RunResult {
  const messages = values.messages ?? [];
  const clarification = findPendingClarification(messages) ?? undefined;
  const last = messages[messages.length - 1];
  const guardStop = values.stop_reason as StopReason | null | undefined;
  const stop_reason: StopReason = clarification ? "clarification" : (guardStop ?? "end_turn");
  // A plan-mode run nobody could approve in ends with the plan (middleware/plan-mode.ts): the plan is its answer.
  const final_text = clarification ? clarification.question : (planOf(last) ?? (AIMessage.isInstance(last) ? messageText(last) : ""));
  const thread_usage = (values.thread_usage as TokenUsage | undefined) ?? usage;
  const title = (values.title as string | null | undefined) ?? undefined;
  return { thread_id: threadId, run_id: runId, status: "success", stop_reason, final_text, usage, thread_usage, permission_denials, clarification, messages, title };
}
