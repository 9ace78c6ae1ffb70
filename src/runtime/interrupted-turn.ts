// What an interrupted run keeps (esc in the TUI, SIGINT/SIGTERM of `run`): the part of the answer that streamed,
// the results of tool calls that finished, an "interrupted" result for each call that never got one (so the history
// stays valid for every provider), and one note that the user interrupted. The note ends the kept answer, so the
// next request reads "…partial answer [Interrupted by the user.]" followed by the user's next message — never two
// user messages in a row — and the model is told once, in the conversation, where it was stopped.
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { repairToolCallHistory } from "../middleware/dangling-tool-call.js";
import { INTERRUPTED_MARKER, isInterruptedMessage } from "../vocabulary/message-markers.js";
import { messageText } from "../vocabulary/message-text.js";
import { INTERRUPTED_BY_USER_TOOL_TEXT, INTERRUPTED_NOTE } from "../vocabulary/interruption-text.js";
import { isStoreWriteFailure } from "../persistence/store.js";
import { isConnectionFault } from "../persistence/postgres-connection.js";
import type { RunEvent, RunEventListener } from "./events.js";
import type { LeadAgent } from "./run-agent.js";

/**
 * The answer text the user saw stream during the model call in progress: the deltas (already restored and masked, as
 * shown) since the last completed model message. It listens to the run's events on their way to the caller.
 */
export class StreamedAnswer {
  private text = "";

  /** The run's listener, with the streamed text noted on the way. */
  listen(next: RunEventListener | undefined): RunEventListener {
    return (e: RunEvent) => {
      if (e.type === "message.delta") this.text += e.text;
      else if (e.type === "message.completed") this.text = "";
      next?.(e);
    };
  }

  /** What streamed of the answer that did not complete. */
  get partial(): string {
    return this.text;
  }
}

/**
 * The messages update that keeps an interrupted run's work (pure), or undefined when nothing was cut: the thread
 * ends with a finished answer. `messages` is the thread's state after the run's finished steps were applied.
 */
export function interruptedUpdate(messages: readonly BaseMessage[], partial: string, runId: string): { messages: BaseMessage[] } | undefined {
  const repaired = repairToolCallHistory(messages, INTERRUPTED_BY_USER_TOOL_TEXT, { [INTERRUPTED_MARKER]: true }).messages;
  const last = repaired.at(-1);
  // Cut: an answer had begun, or the thread waits on the model (after the user's message or tool results).
  const cut = partial.trim() !== "" || (last !== undefined && (HumanMessage.isInstance(last) || ToolMessage.isInstance(last)));
  const note = cut ? [interruptedAnswer(partial, runId)] : [];
  const appended = repaired.length >= messages.length && messages.every((m, i) => repaired[i] === m);
  if (appended && repaired.length === messages.length && note.length === 0) return undefined;
  if (appended) return { messages: [...repaired.slice(messages.length), ...note] };
  // A result moved next to its call: the whole list is written again (add-messages can only append or replace).
  return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...repaired, ...note] };
}

/**
 * Writes what an interrupted run keeps into its thread, through the state graph, under the run's lock: first the steps
 * that finished while another still ran (a tool that returned before esc: LangGraph applies a superstep's saved
 * writes on the next state update), then the partial answer, the cut calls' results and the note.
 */
export async function keepInterruptedWork(graph: LeadAgent["graph"], threadId: string, runId: string, partial: string): Promise<void> {
  const config = { configurable: { thread_id: threadId } };
  try {
    const before = await graph.getState(config);
    if (!before.config?.configurable?.checkpoint_id) return;
    if (before.next.length > 0) await graph.updateState(config, { messages: [] } as never, "model_request");
    const values = (await graph.getState(config)).values as { messages?: BaseMessage[] };
    const update = interruptedUpdate(values.messages ?? [], partial, runId);
    if (update) await graph.updateState(config, update as never, "model_request");
  } catch (err) {
    // A store that cannot write is the caller's to report; anything else must not cost the run its record (the
    // thread then keeps its finished steps, and DanglingToolCall mends a cut call on the next run).
    if (isStoreWriteFailure(err) || isConnectionFault(err)) throw err;
  }
}

/** The kept answer: what streamed, then the note. */
function interruptedAnswer(partial: string, runId: string): AIMessage {
  const text = partial.trimEnd();
  return new AIMessage({ id: `interrupted-${runId}`, content: text ? `${text}\n\n${INTERRUPTED_NOTE}` : INTERRUPTED_NOTE, additional_kwargs: { [INTERRUPTED_MARKER]: true } });
}

/** A kept answer's text as the user saw it stream (without the note for the model). */
export function interruptedAnswerText(m: BaseMessage): string {
  const text = messageText(m);
  if (!isInterruptedMessage(m) || !text.endsWith(INTERRUPTED_NOTE)) return text;
  return text.slice(0, -INTERRUPTED_NOTE.length).trimEnd();
}
