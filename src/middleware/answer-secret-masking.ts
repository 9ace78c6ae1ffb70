// AnswerSecretMasking — WHY: a key the model repeats in its own answer (read from a file, an environment dump, or
// made up in a key's shape) was printed and stored verbatim: on the screen, in stream-json, in the run's result and
// in the thread's database, where it outlives the run. The answer's text (and its reasoning) is masked with the one
// list of secret shapes (vocabulary/secret-shapes.ts) before anything stores or prints it; the streamed pieces are
// masked the same way in runtime/stream-events.ts. So are the exact values of the credentials deerflow was started
// with, as in tool results: a gateway's key has no key shape (the twenty-eighth pass's A28c-2 printed one whole). Tool-call arguments are left alone: writing a key into the
// user's .env because they asked is the tool's job (and is shown through the approval), not the answer's.
// WHY wrapModelCall, outer to PiiRedaction: the answer is masked after PII placeholders were put back, and before
// the model node returns it, so the checkpoint never holds the raw key.
import { AIMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { credentialValues } from "../sandbox/env-scrub.js";
import { maskSecrets } from "../vocabulary/secret-shapes.js";

function maskContent(content: AIMessage["content"], mask: (text: string) => string): AIMessage["content"] {
  if (typeof content === "string") return mask(content);
  return content.map((block) => (block && typeof block === "object" && block.type === "text" && typeof block.text === "string" ? { ...block, text: mask(block.text) } : block)) as AIMessage["content"];
}

/** `answer` with secret-shaped text and the `known` values masked; the same object when there is none. */
export function maskAnswerSecrets(answer: AIMessage, known: readonly string[] = credentialValues()): AIMessage {
  const reasoning = answer.additional_kwargs?.reasoning_content;
  const texts = [typeof answer.content === "string" ? answer.content : JSON.stringify(answer.content), typeof reasoning === "string" ? reasoning : ""];
  const mask = (text: string) => maskSecrets(text, known);
  if (!texts.some((t) => mask(t) !== t)) return answer;
  return new AIMessage({
    id: answer.id,
    content: maskContent(answer.content, mask),
    name: answer.name,
    response_metadata: answer.response_metadata,
    usage_metadata: answer.usage_metadata,
    additional_kwargs: typeof reasoning === "string" ? { ...answer.additional_kwargs, reasoning_content: mask(reasoning) } : answer.additional_kwargs,
    tool_calls: answer.tool_calls,
    invalid_tool_calls: answer.invalid_tool_calls,
  });
}

export function answerSecretMaskingMiddleware(known: readonly string[] = credentialValues()) {
  return createMiddleware({
    name: "AnswerSecretMasking",
    wrapModelCall: async (request, handler) => {
      const result = await handler(request);
      return AIMessage.isInstance(result) ? maskAnswerSecrets(result, known) : result;
    },
  });
}
