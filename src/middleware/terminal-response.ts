// TerminalResponse — WHY wrapModelCall: an empty final answer (no tool calls, no text) is a provider hiccup the
// user cannot act on: the run would "succeed" with nothing to show (and goal mode requires a non-empty final
// reply). Only wrapModelCall can re-issue the SAME request before anything is written to the thread, so the empty
// message never reaches `messages`: one retry, and if that is empty too, a typed DeerflowError (exit 1) with a
// hint instead of a silent blank turn. Tool-calling turns (even with no text), non-empty answers and Commands
// pass through. A reply whose finish reason is a length or safety stop is left alone: retrying it would only
// repeat it, and ModelLengthFinishReason / SafetyFinishReason explain it.
// WHY its position (outer to LLMErrorHandling, i.e. listed before it): the first middleware is the outermost
// wrapper, so each of our two attempts gets LLMErrorHandling's transient-error retries, and our DeerflowError is
// not seen (or reclassified) by it. Inner wrappers (LoopDetection's reminder, Uploads' note) rebuild their additions
// on the retry, since it goes through the same handler chain.
import { AIMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { DeerflowError } from "../errors.js";
import { messageText } from "../vocabulary/message-text.js";
import { LENGTH_FINISH_REASONS, SAFETY_FINISH_REASONS, finishReasonOf, hasAnyToolCall } from "./util/finish-reason-guard.js";

export const EMPTY_ANSWER_MESSAGE = "The model returned an empty answer twice.";
export const EMPTY_ANSWER_HINT =
  "Try again or rephrase the request; if it keeps happening, check the model and endpoint (some servers answer nothing when the context is too long or the output limit is too small).";

export interface TerminalResponseOptions {
  /** Extra attempts after an empty final answer. Default 1. */
  retries?: number;
  /** Called before each retry (for logging). */
  onRetry?: (attempt: number) => void;
}

const STOP_REASONS: ReadonlySet<string> = new Set([...LENGTH_FINISH_REASONS, ...SAFETY_FINISH_REASONS]);

/** An AI message that is a final answer (no tool calls of any kind) with nothing but whitespace to show. */
export function isEmptyFinalAnswer(result: unknown): boolean {
  if (!AIMessage.isInstance(result)) return false;
  if (hasAnyToolCall(result)) return false;
  const reason = finishReasonOf(result);
  if (reason !== undefined && STOP_REASONS.has(reason)) return false;
  return messageText(result).trim() === "";
}

export function terminalResponseMiddleware(options: TerminalResponseOptions = {}) {
  const retries = Math.max(0, options.retries ?? 1);
  return createMiddleware({
    name: "TerminalResponse",
    wrapModelCall: async (request, handler) => {
      let result = await handler(request);
      for (let attempt = 1; attempt <= retries && isEmptyFinalAnswer(result); attempt++) {
        options.onRetry?.(attempt);
        result = await handler(request);
      }
      if (isEmptyFinalAnswer(result)) {
        const message = retries === 1 ? EMPTY_ANSWER_MESSAGE : retries === 0 ? "The model returned an empty answer." : `The model returned an empty answer ${retries + 1} times.`;
        throw new DeerflowError(message, { hint: EMPTY_ANSWER_HINT });
      }
      return result;
    },
  });
}
