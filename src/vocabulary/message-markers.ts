// The harness's marks on messages, all under `additional_kwargs` (never sent to providers; kept in checkpoints),
// and the predicates every layer uses to read them:
// - HIDDEN_MARKER: context for the model that the user never wrote or saw (reminders, goal continuations);
//   UIs, transcripts and the title skip these messages.
// - TRANSIENT_MARKER: a warning a guard adds for one model call only.
// - CLARIFICATION_MARKER: the ToolMessage carrying an `ask_clarification` question the thread waits on.
// - INTERRUPTED_MARKER: what an interrupted run kept (the partial answer, a tool call cut before its result).
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";

export const HIDDEN_MARKER = "deerflow_hidden";
export const TRANSIENT_MARKER = "deerflow_transient";
export const CLARIFICATION_MARKER = "deerflow_clarification";
export const INTERRUPTED_MARKER = "deerflow_interrupted";
/** Every harness marker starts with this, so a message carrying one is ours (InputSanitization leaves it alone). */
export const MARKER_PREFIX = "deerflow_";

/** HIDDEN_MARKER values. */
export const DYNAMIC_CONTEXT_KIND = "dynamic_context";
export const GOAL_CONTINUATION_KIND = "goal_continuation";
/** The running summary of compacted messages (one per thread, right after the reminders). */
export const SUMMARY_KIND = "conversation_summary";
/** A skill's instructions the harness put in the conversation (a `/<skill>` typed by the user, or re-read after a compaction). */
export const SKILL_KIND = "skill";
/** The reminder of the files a failed run changed and kept (runtime/failed-run-files.ts). */
export const FAILED_RUN_FILES_KIND = "failed_run_files";
/** The skill name on every message that carries a skill's full text (the `skill` tool's result or a SKILL_KIND message). */
export const SKILL_MARKER = "deerflow_skill";

/** The name of the clarification tool (its result carries CLARIFICATION_MARKER). */
export const ASK_CLARIFICATION = "ask_clarification";

function kwargsOf(m: unknown): Record<string, unknown> | undefined {
  if (m === null || typeof m !== "object") return undefined;
  return (m as { additional_kwargs?: Record<string, unknown> }).additional_kwargs;
}

/** True for messages that are context for the model, not conversation: UIs and printers skip them. */
export function isHiddenMessage(m: unknown): boolean {
  const kind = kwargsOf(m)?.[HIDDEN_MARKER];
  return typeof kind === "string" && kind !== "";
}

/** True for a message an interrupted run kept (its partial answer, or the result of a tool call it cut). */
export function isInterruptedMessage(m: unknown): boolean {
  return kwargsOf(m)?.[INTERRUPTED_MARKER] === true;
}

/** The HIDDEN_MARKER kind of a message, if any. */
export function hiddenKind(m: unknown): string | undefined {
  const kind = kwargsOf(m)?.[HIDDEN_MARKER];
  return typeof kind === "string" && kind !== "" ? kind : undefined;
}

/** True for a message the harness wrote (it carries any `deerflow_` marker). */
export function isHarnessMessage(m: unknown): boolean {
  return Object.keys(kwargsOf(m) ?? {}).some((k) => k.startsWith(MARKER_PREFIX));
}

export interface ClarificationPayload {
  question: string;
  clarification_type: string;
  context?: string;
  options?: string[];
}

/** The question a marked clarification ToolMessage carries, or null. */
export function clarificationOf(m: BaseMessage): ClarificationPayload | null {
  if (!ToolMessage.isInstance(m)) return null;
  const p = kwargsOf(m)?.[CLARIFICATION_MARKER];
  if (!p || typeof p !== "object" || typeof (p as { question?: unknown }).question !== "string") return null;
  return p as ClarificationPayload;
}

/** The tool results that answer the LAST AI message (the trailing block after it), or [] when something else follows. */
function trailingToolResults(messages: readonly BaseMessage[]): BaseMessage[] {
  let i = messages.length;
  while (i > 0 && ToolMessage.isInstance(messages[i - 1])) i--;
  if (i === messages.length || i === 0 || !AIMessage.isInstance(messages[i - 1])) return [];
  return messages.slice(i);
}

/**
 * The question the thread is waiting on: a marked clarification ToolMessage among the final block of tool results
 * after the last AI message. Null once anything else follows (the user's answer, a later model turn).
 */
export function findPendingClarification(messages: readonly BaseMessage[]): ClarificationPayload | null {
  for (const m of trailingToolResults(messages)) {
    const p = clarificationOf(m);
    if (p) return p;
  }
  return null;
}
