// PII redaction applied to messages (the text shapes are vocabulary/pii-redaction.ts): a request's messages masked
// for the wire, the model's answer restored for the thread, and a masking wrapper for side-call models (summary,
// title, goal evaluator) that call `invoke` directly. The redactor of a thread is kept (bounded), so a value masked
// in one request is restored in the answer to the next.
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { getConfig } from "@langchain/langgraph";
import { type PiiRedactor, createPiiRedactor } from "../../vocabulary/pii-redaction.js";
import { mapMessageText } from "./map-message-text.js";

const MAX_SCOPES = 64;
const redactors = new Map<string, PiiRedactor>();

/** The redactor of `scope` (a thread id), the same object for every call of this process. */
export function redactorFor(scope: string): PiiRedactor {
  let r = redactors.get(scope);
  if (r) {
    redactors.delete(scope);
  } else {
    r = createPiiRedactor(scope);
    if (redactors.size >= MAX_SCOPES) redactors.delete(redactors.keys().next().value!);
  }
  redactors.set(scope, r); // most recently used last
  return r;
}

/** The thread the current graph node works for (the fallback scope outside a graph). */
export function currentScope(fallback = "deerflow"): string {
  try {
    const id = getConfig()?.configurable?.thread_id;
    return typeof id === "string" && id ? id : fallback;
  } catch {
    return fallback;
  }
}

/** A side-call model (summary, title, goal evaluator) whose requests are masked and answers restored. */
export function redactingInvoker<M extends { invoke(input: BaseMessage[], options?: never): Promise<unknown> }>(model: M, scope?: string): M {
  return {
    invoke: async (input: BaseMessage[], options?: never) => {
      const r = redactorFor(scope ?? currentScope());
      const answer = await model.invoke(
        input.map((m) => mapMessageText(m, r.redact)),
        options,
      );
      return AIMessage.isInstance(answer) ? mapMessageText(answer, r.restore) : answer;
    },
  } as M;
}
