// What goes into a run and what comes out: the prompt (after a skill's text when the user activated one), the result
// read from the thread's state, and what an `--input-id` recorded, so a repeated id answers with its run's result
// instead of calling the model again.
import { createHash } from "node:crypto";
import { AIMessage, type BaseMessage, type HumanMessage } from "@langchain/core/messages";
import { UsageError } from "../errors.js";
import { skillContextEntry, skillMessage } from "../skills/activation.js";
import type { SkillCatalog } from "../skills/catalog.js";
import { findPendingClarification } from "../vocabulary/message-markers.js";
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

/** The state update that records this input with its result (in the thread's state, so it survives with the checkpoint). */
export function recordedInput(values: ThreadValues, inputId: string, prompt: RunRequest["prompt"], r: RunResult): Record<string, unknown> {
  const applied = (values.applied_run_inputs as Record<string, AppliedInput> | null | undefined) ?? {};
  const entry: AppliedInput = { run_id: r.run_id, prompt_sha256: promptDigest(prompt), stop_reason: r.stop_reason, final_text: r.final_text, usage: r.usage, permission_denials: r.permission_denials };
  return { applied_run_inputs: { ...applied, [inputId]: entry } };
}

/** A repeated `--input-id` whose run succeeded: its recorded result (with its run's events), or undefined. */
export function repeatedRun(values: ThreadValues, opened: OpenedThread, req: RunRequest & { inputId: string }): RunResult | undefined {
  const entry = (values.applied_run_inputs as Record<string, AppliedInput> | null | undefined)?.[req.inputId];
  if (!entry) return undefined;
  if (entry.prompt_sha256 && entry.prompt_sha256 !== promptDigest(req.prompt)) {
    // A script reusing a key for new work is a bug in the script; answering with the old result would hide it.
    throw new UsageError(
      `Input id ${JSON.stringify(req.inputId)} was already applied on thread ${opened.threadId} (run ${entry.run_id}) to a different prompt.`,
      "Use a new --input-id for a new prompt; repeat the original prompt to get its recorded result.",
    );
  }
  const messages = values.messages ?? [];
  const clarification = entry.stop_reason === "clarification" ? (findPendingClarification(messages) ?? undefined) : undefined;
  const thread_usage = (values.thread_usage as TokenUsage | undefined) ?? entry.usage;
  const r: RunResult = {
    thread_id: opened.threadId,
    run_id: entry.run_id,
    status: "success",
    stop_reason: entry.stop_reason,
    final_text: entry.final_text,
    usage: entry.usage,
    thread_usage,
    permission_denials: entry.permission_denials ?? [],
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
  return r;
}

/** The run's result from the thread's state after it, with the tool calls refused on the way. */
export function resultOf(values: ThreadValues, threadId: string, runId: string, usage: TokenUsage, permission_denials: PermissionDenial[]): RunResult {
  const messages = values.messages ?? [];
  const clarification = findPendingClarification(messages) ?? undefined;
  const last = messages[messages.length - 1];
  const guardStop = values.stop_reason as StopReason | null | undefined;
  const stop_reason: StopReason = clarification ? "clarification" : (guardStop ?? "end_turn");
  const final_text = clarification ? clarification.question : AIMessage.isInstance(last) ? messageText(last) : "";
  const thread_usage = (values.thread_usage as TokenUsage | undefined) ?? usage;
  const title = (values.title as string | null | undefined) ?? undefined;
  return { thread_id: threadId, run_id: runId, status: "success", stop_reason, final_text, usage, thread_usage, permission_denials, clarification, messages, title };
}
