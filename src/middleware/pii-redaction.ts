// PiiRedaction — e-mails, phone numbers, card numbers (Luhn-checked), national IDs and API-key shapes are masked in
// what is sent to the provider; the thread keeps the user's text unchanged. Placeholders are stable per value within
// a thread ([EMAIL_1f3a9c20], keyed by the thread id, which never leaves the machine), so the model can refer to a
// value; placeholders in its answer and tool calls are restored before they reach the thread and the tools.
// WHY wrapModelCall: masking is a property of the wire, not of the state: only the request changes, every request,
// from the stored (real) text. WHY innermost (just before Clarification, below LLMErrorHandling): it sees the final
// request, every reminder and ledger the wrappers above it added, and each retry is masked the same way.
// Side calls that bypass the model node (summary, title, goal evaluator) use `redactingInvoker` (util/pii-messages).
import { AIMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { readRunConfigurable } from "../vocabulary/configurable.js";
import { mapMessageText } from "./util/map-message-text.js";
import { redactorFor } from "./util/pii-messages.js";

export const PII_REDACTION = "PiiRedaction";

export function piiRedactionMiddleware() {
  return createMiddleware({
    name: PII_REDACTION,
    wrapModelCall: async (request, handler) => {
      const threadId = readRunConfigurable(request.runtime?.configurable as Record<string, unknown> | undefined).threadId;
      const r = redactorFor(threadId ?? "deerflow");
      const messages = request.messages.map((m) => mapMessageText(m, r.redact));
      const systemMessage = request.systemMessage ? mapMessageText(request.systemMessage, r.redact) : undefined;
      const result = await handler({ ...request, messages, ...(systemMessage ? { systemMessage } : {}) });
      return AIMessage.isInstance(result) ? mapMessageText(result, r.restore) : result;
    },
  });
}
