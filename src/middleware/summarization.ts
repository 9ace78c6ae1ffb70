// Summarization — WHY beforeModel: the request grows with every model call of a run, so the check runs before EACH
// call (not once per run): when the messages would pass `threshold` of the model's context window (estimated from
// text, since many providers report no usage), or when there are more than `maxMessages` messages, the oldest turn
// blocks are replaced by one running summary. A call the provider still refuses as too long is compacted and sent once
// more (wrapModelCall, below).
// WHY its position (DeerFlow's: after DanglingToolCall and ToolErrorHandling, before Todo/Title/guards): it sees a
// repaired history (no dangling call to split), and everything after it sees the compacted one.
//
// What is kept and removed is compaction-selection.ts. The removed originals go to the message archive (SQLite,
// one row per message) BEFORE the state changes, so nothing is ever only in a summary: `read_history` reads them
// back. The summary is a side call to the same model (non-streaming, tagged "nostream" so no token reaches the
// chat); it folds the previous summary in. A failed, empty or garbage answer never blocks the run: the summary
// then says which archived range holds the originals, and the compaction goes ahead (the request must shrink).
//
// The state write is RemoveMessage(REMOVE_ALL_MESSAGES) plus the rebuilt list (every id kept): add-messages can
// only append, replace in place or delete, and the summary must sit right after the reminders, not at the end.
// Both channel modes handle this (the technique of dangling-tool-call.ts). todos, goal, delegations, notes and
// artifacts live in other state fields and are not touched.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { Command, REMOVE_ALL_MESSAGES, StateSchema } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import type { ArchiveInput, MessageArchiveLike } from "../persistence/message-archive.js";
import { MemoryArchive } from "../persistence/message-archive.js";
import { ContextOverflowError } from "../errors.js";
import { THREAD_STATE_VALUES } from "../state/thread-state.js";
import { readRunConfigurable } from "../vocabulary/configurable.js";
import { HIDDEN_MARKER, SUMMARY_KIND } from "../vocabulary/message-markers.js";
import { contentText } from "../vocabulary/message-text.js";
import type { CompactionInfo } from "../vocabulary/compaction-notice.js";
import { isUserTurn, messageTokens, messagesTokens, placementOf, selectForCompaction } from "./util/compaction-selection.js";
import { redactingInvoker } from "./util/pii-messages.js";
import { compactedRequestMessages, contextOverflowOf } from "./util/overflow-retry.js";
import { type UsageTotals, UsageTotalsSchema, addUsage, usageOf, zeroUsage } from "./util/usage.js";

export const DEFAULT_COMPACTION_THRESHOLD = 0.75;
/** A window for a Summarization middleware built without one (library use); the CLI passes the model's (run-agent.ts). */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
export const SUMMARY_MESSAGE_ID = "conversation-summary";
/** The system prompt of the summary call. Starts with the marker text test model servers recognise. */
export const SUMMARY_PROMPT =
  "Summarize this conversation so far for yourself, to continue the work without it. Keep: the user's goals and " +
  "constraints, decisions made, files and commands touched and what they showed, errors met, and what remains to do. " +
  "Fold the previous summary in. Plain text, at most 400 words, no preamble.";
const SUMMARY_MAX_CHARS = 6000;
const PER_MESSAGE_CHARS = 1500;

export type { CompactionInfo };

export interface SummarizationOptions {
  /** The model that writes the summary (the run's model, non-streaming). None: the summary lists the archive range only. */
  model?: Pick<BaseChatModel, "invoke">;
  /** The model's context window in tokens. Default 128 000. */
  contextWindow?: number;
  /** Compact when the request would pass this fraction of the window. Default 0.75. */
  threshold?: number;
  /** Tokens of the most recent turns always kept. Default 30 % of the window. */
  keepRecentTokens?: number;
  /** Tokens reserved for the system prompt, tool schemas and the answer. Default 4096. */
  reserveTokens?: number;
  /** Where removed originals go. Default: an in-memory archive (lives with the process). */
  archive?: MessageArchiveLike;
  /** Give up on the summary call after this long. Default 60 000 ms. */
  timeoutMs?: number;
  onCompacted?: (info: CompactionInfo) => void;
  /** Called before anything is archived (the user's PreCompact hooks); it cannot stop the compaction. */
  beforeCompact?: (c: { trigger: "manual" | "auto"; instructions: string; threadId: string }) => Promise<unknown>;
  /** Mask personal values in the summary request (the summary comes back restored). Default false. */
  piiRedaction?: boolean;
  /**
   * The window is a guess (the server did not say): compact by it, but never refuse a message as too long for it
   * (the provider decides; its overflow error is compacted and retried once).
   */
  guessedWindow?: boolean;
  /** Compact also when the conversation holds more than this many messages (the seed's message trigger). */
  maxMessages?: number;
  /**
   * The provider refused a call as too long for its window: learn what the error says the window is (tokens), if
   * it says. The call is then compacted to fit that window (else a tenth of the current one is kept) and retried once.
   */
  onOverflow?: (providerMessage: string) => number | undefined;
}

// The summary call is a model call: its tokens count in the run's and the thread's usage (TokenUsage's fields).
const stateSchema = new StateSchema({
  summary_text: THREAD_STATE_VALUES.summary_text,
  task_history: THREAD_STATE_VALUES.task_history,
  run_usage: UsageTotalsSchema.default(zeroUsage),
  thread_usage: UsageTotalsSchema.default(zeroUsage),
});

function roleOf(m: BaseMessage): string {
  if (AIMessage.isInstance(m)) return "assistant";
  if (ToolMessage.isInstance(m)) return "tool";
  if (HumanMessage.isInstance(m)) return "user";
  return m.getType();
}

/** A message as archived text: its content, and for an AI message its tool calls. */
function archiveInput(m: BaseMessage, index: number): ArchiveInput {
  let text = contentText(m.content, { placeholders: true });
  let name: string | null = null;
  if (AIMessage.isInstance(m) && m.tool_calls?.length) {
    name = m.tool_calls.map((c) => c.name).join(",");
    text += `${text ? "\n" : ""}${m.tool_calls.map((c) => `[tool call ${c.name} ${JSON.stringify(c.args ?? {})}]`).join("\n")}`;
  }
  if (ToolMessage.isInstance(m)) name = m.name ?? null;
  return { message_id: m.id ?? `noid-${index}-${text.length}`, role: roleOf(m), name, text };
}

function summaryRequest(previous: string | null, removed: ArchiveInput[], budgetChars: number, focus?: string): string {
  const parts: string[] = [];
  if (previous) parts.push(`Previous summary:\n${previous}`);
  if (focus) parts.push(`Focus on: ${focus}`);
  parts.push("Messages to fold in:");
  let used = parts.join("\n\n").length;
  for (const r of removed) {
    const body = r.text.length > PER_MESSAGE_CHARS ? `${r.text.slice(0, PER_MESSAGE_CHARS)} […${r.text.length - PER_MESSAGE_CHARS} chars]` : r.text;
    const line = `[${r.role}${r.name ? ` ${r.name}` : ""}] ${body}`;
    if (used + line.length > budgetChars) {
      parts.push(`[… ${removed.length - parts.length} more messages, archived]`);
      break;
    }
    parts.push(line);
    used += line.length + 2;
  }
  return parts.join("\n\n");
}

/** The model's answer as a summary, or why it is not one. */
function cleanSummary(raw: unknown): { text?: string; problem?: string } {
  const text = contentText(raw)
    .replace(/<think>[\s\S]*?<\/think>/gi, "")
    .trim();
  if (!text) return { problem: "the summary call returned no text" };
  if (!/[\p{L}\p{N}]{2}/u.test(text)) return { problem: "the summary call returned no words" };
  return { text: text.length > SUMMARY_MAX_CHARS ? `${text.slice(0, SUMMARY_MAX_CHARS)} […]` : text };
}

async function writeSummary(opts: SummarizationOptions, request: string, threadId: string): Promise<{ text?: string; problem?: string; usage?: UsageTotals }> {
  if (!opts.model) return { problem: "no summary model" };
  const model = opts.piiRedaction ? redactingInvoker(opts.model, threadId) : opts.model;
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), opts.timeoutMs ?? 60_000);
  try {
    const answer = await model.invoke([new SystemMessage(SUMMARY_PROMPT), new HumanMessage(request)], { tags: ["nostream"], signal: ac.signal });
    return { ...cleanSummary(answer.content), usage: usageOf(answer) ?? undefined };
  } catch (err) {
    return {
      problem: `the summary call failed (${String((err as Error)?.message ?? err)
        .split("\n")[0]!
        .slice(0, 200)})`,
    };
  } finally {
    clearTimeout(timer);
  }
}

function summaryMessage(text: string, from: number, to: number): HumanMessage {
  return new HumanMessage({
    id: SUMMARY_MESSAGE_ID,
    content: `<system-reminder>\nSummary of the earlier conversation (the original messages #1–#${to} are archived; read them with read_history):\n${text}\n</system-reminder>`,
    additional_kwargs: { [HIDDEN_MARKER]: SUMMARY_KIND, archived_from: from, archived_to: to },
  });
}

export interface CompactArgs {
  messages: BaseMessage[];
  summary: string | null;
  history: Record<string, unknown> | null;
  threadId: string;
  checkpointId: string | null;
  focus?: string;
  force?: boolean;
  /** `manual` for `/compact`; `auto` (default) when the window or a provider's refusal asks for it. */
  trigger?: "manual" | "auto";
  /** The usage totals the summary call's tokens are added to. */
  usage?: { run_usage?: UsageTotals | null; thread_usage?: UsageTotals | null };
}

/** One compaction: the state update, or undefined when there is nothing to remove. Exposed for `/compact`. */
export async function compactMessages(opts: SummarizationOptions, args: CompactArgs) {
  const window = opts.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  const keepRecent = opts.keepRecentTokens ?? Math.floor(window * 0.3);
  const before = messagesTokens(args.messages);
  const sel = selectForCompaction(args.messages, keepRecent, opts.maxMessages ? Math.max(2, Math.floor(opts.maxMessages / 2)) : undefined);
  if (sel.removed.length === 0) return undefined;
  await opts.beforeCompact?.({ trigger: args.trigger ?? "auto", instructions: args.focus ?? "", threadId: args.threadId });
  const archive = opts.archive ?? fallbackArchive;
  const inputs = sel.removed.map(archiveInput);
  // Archive first: if anything below fails or the process dies, the originals are already safe (idempotent by id).
  const range = await archive.put(args.threadId, args.checkpointId, inputs);
  const total = await archive.count(args.threadId);
  const request = summaryRequest(args.summary, inputs, Math.floor(window * 0.5) * 4, args.focus);
  const written = await writeSummary(opts, request, args.threadId);
  const text =
    written.text ??
    `${args.summary ? `${args.summary}\n\n` : ""}(No new summary: ${written.problem}. Messages #${range.from}–#${range.to} were archived unsummarized; read them with read_history if you need them.)`;
  const summary = summaryMessage(text, 1, total);
  const rebuilt = [...sel.reminders, summary, ...sel.kept];
  const after = messagesTokens(rebuilt);
  const info: CompactionInfo = {
    messages: sel.removed.length,
    tokens_before: before,
    tokens_after: after,
    archived_from: range.from,
    archived_to: range.to,
    ...(written.problem ? { summary_failed: written.problem } : {}),
    ...(written.usage ? { summary_usage: written.usage } : {}),
  };
  const prev = (args.history ?? {}) as { compactions?: unknown[] };
  const compactions = [...(Array.isArray(prev.compactions) ? prev.compactions : []), { at: new Date().toISOString(), checkpoint_id: args.checkpointId, ...info, placed: placementOf(sel) }].slice(-20);
  opts.onCompacted?.(info);
  return {
    info,
    summary,
    removed: sel.removed,
    kept: sel.kept,
    update: {
      messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...rebuilt],
      summary_text: text,
      task_history: { table: "message_archive", archived: total, compactions },
      ...(written.usage && args.usage?.run_usage ? { run_usage: addUsage(args.usage.run_usage, written.usage, "summary") } : {}),
      ...(written.usage ? { thread_usage: addUsage(args.usage?.thread_usage, written.usage, "summary") } : {}),
    },
  };
}

const fallbackArchive = new MemoryArchive();

/** The compaction of one model call's state (shared by the threshold check and the overflow retry). */
function compactState(options: SummarizationOptions, state: Record<string, unknown>, runtime: unknown) {
  const configurable = (runtime as { configurable?: Record<string, unknown> }).configurable;
  const run = readRunConfigurable(configurable);
  const s = state as { messages?: BaseMessage[]; summary_text?: string | null; task_history?: Record<string, unknown> | null; run_usage?: UsageTotals; thread_usage?: UsageTotals };
  return compactMessages(options, {
    messages: s.messages ?? [],
    summary: s.summary_text ?? null,
    history: s.task_history ?? null,
    threadId: run.threadId ?? "ephemeral",
    checkpointId: typeof configurable?.checkpoint_id === "string" ? configurable.checkpoint_id : null,
    usage: { run_usage: s.run_usage, thread_usage: s.thread_usage },
  });
}

export function summarizationMiddleware(options: SummarizationOptions = {}) {
  const window = options.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  const reserve = options.reserveTokens ?? 4096;
  const limit = Math.floor(window * (options.threshold ?? DEFAULT_COMPACTION_THRESHOLD)) - reserve;
  return createMiddleware({
    name: "Summarization",
    stateSchema,
    beforeModel: async (state, runtime) => {
      const messages: BaseMessage[] = state.messages ?? [];
      const tooMany = options.maxMessages !== undefined && messages.length > options.maxMessages;
      if (messagesTokens(messages) <= limit && !tooMany) return undefined;
      // A user message bigger than the whole window fits no compaction: refuse it before archiving anything.
      const latest = [...messages].reverse().find(isUserTurn);
      const latestTokens = latest ? messageTokens(latest) : 0;
      if (!options.guessedWindow && latestTokens > window - reserve) throw new ContextOverflowError("The latest message", latestTokens, window);
      const done = await compactState(options, state as Record<string, unknown>, runtime);
      const after = done ? done.info.tokens_after : messagesTokens(messages);
      if (!options.guessedWindow && after > window) throw new ContextOverflowError("The conversation's most recent turns", after, window);
      return done?.update as never;
    },
    // WHY wrapModelCall too: the window may be a guess or the estimate low, and the provider then refuses the call
    // as too long. That is what compaction is for: compact to the window the error states (else keep a tenth of the
    // current one) and send the call once more; a second refusal fails the run with the provider's words.
    wrapModelCall: async (request, handler) => {
      try {
        return await handler(request);
      } catch (err) {
        const overflow = contextOverflowOf(err);
        if (!overflow) throw err;
        const stated = options.onOverflow?.(overflow.message);
        const sized = Math.min(stated ?? window, window);
        const done = await compactState({ ...options, contextWindow: sized, keepRecentTokens: Math.floor(sized * (stated ? 0.3 : 0.1)) }, request.state as Record<string, unknown>, request.runtime);
        if (!done) throw err;
        const answer = await handler({ ...request, messages: compactedRequestMessages(request.messages, done.removed, done.kept, done.summary) });
        // The compaction is kept: the state becomes the compacted list plus this answer (the agent node appends the
        // answer first; this update then replaces the list, so the answer is part of it).
        const update = done.update as { messages: BaseMessage[] } & Record<string, unknown>;
        return new Command({ update: { ...update, messages: [...update.messages, answer] } });
      }
    },
  });
}
