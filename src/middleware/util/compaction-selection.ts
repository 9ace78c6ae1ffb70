// Which messages a compaction keeps and which it removes (pure; the summarization middleware does the I/O).
// The unit of selection is a "turn block": an AI message with tool calls together with the ToolMessages that answer
// it, or any other single message. A block is kept or removed whole, so an AI tool call is never separated from its
// results. Always kept: the DynamicContext reminders (moved to the front, where they already sit for the first
// day), the first user message of the thread, the latest user message and the most recent blocks within a token
// budget (the last block always, however large). A previous summary message is replaced, never kept.
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { DYNAMIC_CONTEXT_KIND, SUMMARY_KIND, hiddenKind, isHiddenMessage } from "../../vocabulary/message-markers.js";
import { contentText } from "../../vocabulary/message-text.js";
import { estimateTokens } from "../../model/usage-estimate.js";

export interface CompactionSelection {
  /** The reminders, in their order (they lead the rebuilt list). */
  reminders: BaseMessage[];
  /** The previous summary message, if any (replaced by the new one). */
  previousSummary?: BaseMessage;
  /** What goes to the archive, in order. */
  removed: BaseMessage[];
  /** What stays after the summary, in order. */
  kept: BaseMessage[];
  /** Each kept or removed message's position in the conversation. */
  order: Map<BaseMessage, number>;
}

/** Estimated tokens of one message as sent: its text, its tool calls' names and arguments, a few for the framing. */
export function messageTokens(m: BaseMessage): number {
  let chars = contentText(m.content, { placeholders: true }).length + 16;
  if (AIMessage.isInstance(m)) for (const c of m.tool_calls ?? []) chars += c.name.length + JSON.stringify(c.args ?? {}).length + 24;
  return estimateTokens(chars);
}

export function messagesTokens(messages: readonly BaseMessage[]): number {
  return messages.reduce((n, m) => n + messageTokens(m), 0);
}

/** A user's own message (not a reminder, summary or goal continuation). */
export function isUserTurn(m: BaseMessage): boolean {
  return HumanMessage.isInstance(m) && !isHiddenMessage(m);
}

/** Consecutive blocks: an AI message with tool calls and the ToolMessages right after it that answer those calls. */
export function turnBlocks(messages: readonly BaseMessage[]): BaseMessage[][] {
  const blocks: BaseMessage[][] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const block = [m];
    if (AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0) {
      const ids = new Set((m.tool_calls ?? []).map((c) => c.id));
      while (i + 1 < messages.length && ToolMessage.isInstance(messages[i + 1]) && ids.has((messages[i + 1] as ToolMessage).tool_call_id)) block.push(messages[++i]!);
    }
    blocks.push(block);
  }
  return blocks;
}

/** A run of removed messages and the id of the message kept right before it (null: at the start). */
export interface Placement {
  after: string | null;
  count: number;
}

/**
 * Where the removed messages stood, as runs after kept messages (pure): recorded with each compaction so a reader
 * (`threads show`) can print the archived originals in their place, also when some came after the kept latest user message.
 */
export function placementOf(sel: CompactionSelection): Placement[] {
  const removed = new Set(sel.removed);
  const out: Placement[] = [];
  let after: string | null = null;
  let open: Placement | undefined;
  for (const m of [...sel.kept, ...sel.removed].sort((a, b) => sel.order.get(a)! - sel.order.get(b)!)) {
    if (!removed.has(m)) {
      after = m.id ?? after;
      open = undefined;
    } else if (open) open.count += 1;
    else out.push((open = { after, count: 1 }));
  }
  return out;
}

/** `keepRecentMessages`: the recent blocks kept also stop at this many messages (the message-count trigger). */
export function selectForCompaction(messages: readonly BaseMessage[], keepRecentTokens: number, keepRecentMessages = Number.POSITIVE_INFINITY): CompactionSelection {
  const reminders: BaseMessage[] = [];
  let previousSummary: BaseMessage | undefined;
  const rest: BaseMessage[] = [];
  for (const m of messages) {
    const kind = hiddenKind(m);
    if (kind === DYNAMIC_CONTEXT_KIND) reminders.push(m);
    else if (kind === SUMMARY_KIND) previousSummary = m;
    else rest.push(m);
  }
  const blocks = turnBlocks(rest);
  const firstUser = rest.find(isUserTurn);
  const latestUser = [...rest].reverse().find(isUserTurn);
  const keep = new Array<boolean>(blocks.length).fill(false);
  blocks.forEach((b, i) => {
    if (b.some((m) => m === firstUser || m === latestUser)) keep[i] = true;
  });
  let budget = keepRecentTokens;
  let count = keepRecentMessages;
  for (let i = blocks.length - 1; i >= 0; i--) {
    const cost = messagesTokens(blocks[i]!);
    if (i < blocks.length - 1 && (cost > budget || blocks[i]!.length > count)) break;
    budget -= cost;
    count -= blocks[i]!.length;
    keep[i] = true;
  }
  const removed: BaseMessage[] = [];
  const kept: BaseMessage[] = [];
  blocks.forEach((b, i) => (keep[i] ? kept : removed).push(...b));
  return { reminders, previousSummary, removed, kept, order: new Map(rest.map((m, i) => [m, i])) };
}
