// Title — WHY afterAgent: a title needs the first exchange (the user's request AND the agent's first answer: its
// final reply, or the clarification question the turn ended with), and afterAgent runs once per run, after the loop
// ended — a clarification ends it through the graph's exit too. It runs only while `title` is null, so it fires
// once per thread: later runs find a title and do nothing.
// WHY its position (after Todo, before Memory, per DeerFlow's order): it touches nothing other middleware read;
// after* hooks run in reverse, so it sees the final messages once the later guards have settled them.
//
// ONE cheap model call, with a short timeout, tagged "nostream" so its tokens never show up in the run's
// "messages" stream (the user would otherwise see the title being typed into the chat). On ANY failure (no model,
// timeout, provider error, empty answer) the title falls back to the first words of the user's message: the hook
// never throws, so a title can never fail a run.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { StateSchema } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { maskCredentials } from "../sandbox/env-scrub.js";
import { THREAD_STATE_VALUES } from "../state/thread-state.js";
import { clarificationOf, isHiddenMessage } from "../vocabulary/message-markers.js";
import { contentText } from "../vocabulary/message-text.js";
import { type UsageSink, type UsageTotals, UsageTotalsSchema, addUsage, usageOf, zeroUsage } from "./util/usage.js";

/** The system prompt of the title request. Starts with the marker text test model servers recognise. */
export const TITLE_PROMPT =
  "Write a short title for this conversation: at most 6 words, in the language of the user's request. " +
  "Answer with the title only: no quotes, no markdown, no trailing punctuation, no explanation.";

export const TITLE_MAX_WORDS = 6;
export const TITLE_MAX_CHARS = 60;
/** How much of the user's request and of the answer the title request carries. */
export const TITLE_USER_CHARS = 1000;
export const TITLE_ANSWER_CHARS = 500;
/** Used when even the user's message has no words. */
export const UNTITLED = "New conversation";

export interface TitleOptions {
  /** The (cheap) model that writes the title. None: the title is the first words of the user's message. */
  model?: Pick<BaseChatModel, "invoke">;
  /** Give up on the model after this long and fall back. Default 8000. */
  timeoutMs?: number;
  /** The current run's ledger: the title call's tokens count in the run's usage (and here in the thread's). */
  sink?: () => UsageSink | undefined;
}

/** A hidden `<system-reminder>` message (DynamicContext's `deerflow_hidden`, LoopDetection…) is not something the user wrote. */
function isUserMessage(m: BaseMessage): boolean {
  if (!HumanMessage.isInstance(m)) return false;
  if (isHiddenMessage(m)) return false;
  return !contentText(m.content).trimStart().startsWith("<system-reminder>");
}

/** Cut `text` to at most `words` words and `chars` characters, on a word boundary when possible. */
function clip(text: string, words: number, chars: number): string {
  let out = text.split(/\s+/).filter(Boolean).slice(0, words).join(" ");
  if (out.length > chars) {
    const cut = out.slice(0, chars);
    const space = cut.lastIndexOf(" ");
    out = space > 0 ? cut.slice(0, space) : cut;
  }
  return out.replace(/[\s.,;:!?…\-–—]+$/u, "").trim();
}

/** A model's answer as a title: first non-empty line, no "Title:" prefix, quotes, markdown or trailing punctuation. */
export function normalizeTitle(raw: string): string {
  // Masked on the raw text, before the clean-up takes out the `_` a key's shape is known by (`ghp_…` became
  // `ghpabc…`, exported and listed whole: the sixteenth adversarial pass's S1), and again after it.
  const line =
    maskCredentials(raw)
      .replace(/<think>[\s\S]*?<\/think>/gi, "")
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? "";
  const cleaned = line
    .replace(/^#+\s*/, "")
    .replace(/^title\s*[:：-]\s*/i, "")
    .replace(/[*_`~]+/g, "")
    .replace(/^["'“”‘’«»「」『』\s]+|["'“”‘’«»「」『』\s]+$/gu, "")
    .replace(/^title\s*[:：-]\s*/i, "")
    .replace(/\s+/g, " ")
    .trim();
  return maskCredentials(clip(cleaned, TITLE_MAX_WORDS, TITLE_MAX_CHARS)).replace(/^["'“”‘’«»「」『』\s]+|["'“”‘’«»「」『』\s]+$/gu, "");
}

/** The fallback title: the first words of the user's message. */
export function fallbackTitle(userText: string): string {
  // Masked first, as normalizeTitle: the clean-up removes the `_` of `ghp_…`.
  const t = clip(
    maskCredentials(userText)
      .replace(/[#*_`~"“”]+/g, "")
      .replace(/\s+/g, " ")
      .trim(),
    TITLE_MAX_WORDS,
    TITLE_MAX_CHARS,
  );
  return maskCredentials(t) || UNTITLED;
}

/**
 * The thread's first exchange: its first user message and the first model answer to it — the final answer of
 * that turn, or the question it ended with (a thread that starts with a clarification gets a title too).
 */
export function firstExchange(messages: readonly BaseMessage[]): { user: string; answer: string } | null {
  const start = messages.findIndex(isUserMessage);
  if (start < 0) return null;
  let answer: string | undefined;
  for (const m of messages.slice(start + 1)) {
    if (isUserMessage(m)) break;
    const question = clarificationOf(m);
    if (question) return { user: contentText(messages[start]!.content).trim(), answer: question.question };
    if (AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) === 0) answer = contentText(m.content).trim() || answer;
  }
  return answer ? { user: contentText(messages[start]!.content).trim(), answer } : null;
}

async function withTimeout<T>(work: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`title model timed out after ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** One title for `user`'s request and the `answer`; never throws. */
export async function generateTitle(user: string, answer: string, options: TitleOptions = {}): Promise<string> {
  return (await titleCall(user, answer, options)).title;
}

/** The title and the call's tokens (null: no call answered). */
async function titleCall(user: string, answer: string, options: TitleOptions): Promise<{ title: string; usage: UsageTotals | null }> {
  const fallback = fallbackTitle(user);
  const model = options.model;
  if (!model) return { title: fallback, usage: null };
  try {
    const request = [new SystemMessage(TITLE_PROMPT), new HumanMessage(`User request:\n${user.slice(0, TITLE_USER_CHARS)}\n\nAssistant answer:\n${answer.slice(0, TITLE_ANSWER_CHARS)}`)];
    const reply = await withTimeout((signal) => model.invoke(request, { signal, tags: ["nostream", "deerflow:title"] } as never), Math.max(1, options.timeoutMs ?? 8000));
    const title = normalizeTitle(contentText((reply as { content?: unknown } | undefined)?.content));
    return { title: title || fallback, usage: usageOf(reply) };
  } catch {
    return { title: fallback, usage: null };
  }
}

const stateSchema = new StateSchema({ title: THREAD_STATE_VALUES.title, thread_usage: UsageTotalsSchema.default(zeroUsage) });

export function titleMiddleware(options: TitleOptions = {}) {
  return createMiddleware({
    name: "Title",
    stateSchema,
    afterAgent: async (state) => {
      try {
        if ((state as { title?: string | null }).title) return undefined;
        const exchange = firstExchange(state.messages);
        if (!exchange) return undefined;
        const { title, usage } = await titleCall(exchange.user, exchange.answer, options);
        if (!usage) return { title };
        options.sink?.()?.add("title", usage);
        return { title, thread_usage: addUsage((state as { thread_usage?: UsageTotals }).thread_usage, usage, "title") };
      } catch {
        return undefined; // never fail a run over a title
      }
    },
  });
}
