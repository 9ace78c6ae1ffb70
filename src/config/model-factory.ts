// Builds the chat model for a resolved config entry: our DeerflowChatModel (src/model/) over any OpenAI-compatible
// endpoint (OpenAI, Ollama, vLLM, llama.cpp server, OpenRouter…). Imports @langchain/openai, so only load this
// module from commands that talk to a model.
import { DeerflowChatModel } from "../model/deerflow-chat-model.js";
import { guardedFetch } from "../model/guarded-fetch.js";
import { holdCredential } from "../vocabulary/held-credentials.js";
import type { ResolvedModel } from "./load.js";

/** Local servers ignore the key, but the OpenAI client refuses an empty one. */
const PLACEHOLDER_KEY = "not-needed";

export function createChatModel(m: ResolvedModel, opts: { streaming?: boolean } = {}): DeerflowChatModel {
  holdCredential(m.apiKey);
  return new DeerflowChatModel({
    model: m.model,
    apiKey: m.apiKey ?? PLACEHOLDER_KEY,
    configuration: {
      baseURL: m.baseUrl,
      fetch: guardedFetch({
        idleTimeoutMs: m.idleTimeoutMs,
        endpoint: m.baseUrl,
        passBackReasoning: m.passBackReasoning,
        secrets: [m.apiKey],
        // A provider that ignores max_tokens is stopped at 16 characters a token (4× the usual ~4), at least 64k.
        ...(m.maxTokens !== undefined ? { maxOutputChars: Math.max(m.maxTokens * 16, 64_000) } : {}),
      }),
    },
    // Chat completions, not the Responses API: that is what OpenAI-compatible servers implement.
    useResponsesApi: false,
    streaming: opts.streaming ?? m.stream,
    streamUsage: true,
    // Retries are ours (LLMErrorHandling middleware): one place decides backoff and the final message.
    maxRetries: 0,
    // The SDK's timeout covers the wait for the response headers; the idle timeout (guarded fetch) the body.
    timeout: m.timeoutMs,
    ...(m.temperature !== undefined ? { temperature: m.temperature } : {}),
    ...(m.maxTokens !== undefined ? { maxTokens: m.maxTokens } : {}),
  });
}
