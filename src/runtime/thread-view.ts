// A saved thread as a person reads it: the visible conversation (user inputs, answers, tool calls with their
// results, clarification questions), the todos, goal, delegations and token usage, and the question it waits on.
// `deerflow resume` shows exactly this before the user types; hidden messages (goal continuations, reminders) are
// left out because the user never wrote or saw them.
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { ThreadRow } from "../persistence/thread-index.js";
import { ASK_CLARIFICATION, clarificationOf, findPendingClarification, isHiddenMessage, isInterruptedMessage } from "../vocabulary/message-markers.js";
import { interruptedAnswerText } from "./interrupted-turn.js";
import { messageText } from "../vocabulary/message-text.js";
import type { GoalOutcome, GoalState } from "../state/types.js";
import type { ClarificationRequest, DelegationView, TodoView, TokenUsage } from "./events.js";
import { emptyUsage } from "./events.js";
import { messagesTokens } from "../middleware/util/compaction-selection.js";
import { userShellOf } from "./user-shell-message.js";
import { type PresentedMounts, hostPathOf } from "../vocabulary/presented-files.js";

export type TranscriptEntry =
  | { kind: "user"; id: string; text: string }
  | { kind: "assistant"; id: string; text: string; interrupted?: true }
  | { kind: "tool"; id: string; name: string; args: unknown; status: "ok" | "error" | "running"; output: string; interrupted?: true }
  | { kind: "clarification"; id: string; clarification: ClarificationRequest }
  /** A `!cmd` the user ran (user-shell-message.ts). */
  | { kind: "shell"; id: string; command: string; exitCode: number | undefined; output: string };

export interface ThreadView {
  thread: ThreadRow;
  entries: TranscriptEntry[];
  todos: TodoView[];
  delegations: DelegationView[];
  goal: GoalState | null;
  goal_outcome: GoalOutcome | null;
  /** The question the thread waits on, if its last turn asked one. */
  clarification: ClarificationRequest | null;
  usage: TokenUsage;
  /** The agent's working notes (write_notes); "" when none. */
  notes: string;
  /** Tokens the next request starts from: the last model call's usage, else estimated from the messages. */
  context_tokens: number;
  context_estimated: boolean;
  /** The files the agent presented on this thread (present_files), as paths on this machine. */
  files: string[];
}

/** The files a thread's agent presented, as paths on this machine (from its state's `artifacts` and `thread_data`). */
export function presentedFilesOf(values: { artifacts?: unknown; thread_data?: unknown }): string[] {
  const artifacts = Array.isArray(values.artifacts) ? values.artifacts.filter((p): p is string => typeof p === "string") : [];
  const mounts = (values.thread_data ?? {}) as PresentedMounts;
  return artifacts.map((p) => hostPathOf(p, mounts));
}

/** The visible conversation of a message list (pure; exported for tests). */
export function transcriptOf(messages: readonly BaseMessage[]): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  const tools = new Map<string, Extract<TranscriptEntry, { kind: "tool" }>>();
  messages.forEach((m, i) => {
    const id = m.id ?? `m${i}`;
    if (HumanMessage.isInstance(m)) {
      const shell = userShellOf(m);
      if (shell) out.push({ kind: "shell", id, ...shell });
      else if (!isHiddenMessage(m)) out.push({ kind: "user", id, text: messageText(m) });
    } else if (AIMessage.isInstance(m)) {
      // An interrupted run's kept answer shows what streamed (possibly nothing), marked; the note is the model's.
      if (isInterruptedMessage(m)) out.push({ kind: "assistant", id, text: interruptedAnswerText(m), interrupted: true });
      else if (messageText(m).trim()) out.push({ kind: "assistant", id, text: messageText(m) });
      for (const c of m.tool_calls ?? []) {
        if (c.name === ASK_CLARIFICATION) continue;
        const entry = { kind: "tool" as const, id: c.id ?? `${id}:${c.name}`, name: c.name, args: c.args, status: "running" as const, output: "" };
        tools.set(entry.id, entry as never);
        out.push(entry);
      }
    } else if (ToolMessage.isInstance(m)) {
      const marked = clarificationOf(m);
      if (marked) {
        out.push({ kind: "clarification", id, clarification: marked });
        return;
      }
      const entry = tools.get(m.tool_call_id);
      if (entry) {
        entry.status = m.status === "error" ? "error" : "ok";
        entry.output = messageText(m);
        if (isInterruptedMessage(m)) entry.interrupted = true;
      }
    }
  });
  return out;
}

/** The view of a thread from its index row and its state values (read by the ThreadRuntime). */
export function threadViewOf(thread: ThreadRow, values: Record<string, unknown>): ThreadView {
  const v = values as {
    messages?: BaseMessage[];
    todos?: TodoView[] | null;
    delegations?: DelegationView[] | null;
    goal?: GoalState | null;
    goal_outcome?: GoalOutcome | null;
    thread_usage?: TokenUsage | null;
    task_notes?: { text?: unknown } | null;
  };
  const messages = v.messages ?? [];
  const context = contextOf(messages);
  return {
    thread,
    entries: transcriptOf(messages),
    todos: v.todos ?? [],
    delegations: v.delegations ?? [],
    goal: v.goal && typeof v.goal === "object" ? v.goal : null,
    goal_outcome: v.goal_outcome ?? null,
    clarification: findPendingClarification(messages),
    usage: v.thread_usage ?? emptyUsage(),
    notes: typeof v.task_notes?.text === "string" ? v.task_notes.text : "",
    context_tokens: context.tokens,
    context_estimated: context.estimated,
    files: presentedFilesOf(values),
  };
}

/**
 * The context a thread's next request starts from: the last AI message's reported usage (its input plus its
 * answer) when nothing but that answer came after it, else an estimate of all messages (compaction's estimator).
 */
export function contextOf(messages: readonly BaseMessage[]): { tokens: number; estimated: boolean } {
  const last = messages.at(-1);
  const u = last && AIMessage.isInstance(last) ? last.usage_metadata : undefined;
  if (u && (last!.response_metadata as Record<string, unknown> | undefined)?.usage_estimated !== true) return { tokens: (u.input_tokens ?? 0) + (u.output_tokens ?? 0), estimated: false };
  return { tokens: messagesTokens(messages), estimated: true };
}
