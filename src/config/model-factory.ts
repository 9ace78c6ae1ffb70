// Builds the chat model for a resolved config entry. Any OpenAI-compatible endpoint works through baseURL
// (OpenAI, Ollama, vLLM, llama.cpp server, OpenRouter). Imports @langchain/openai, so only load this module
// from commands that talk to a model.
import { ChatOpenAI } from "@langchain/openai";
import type { ResolvedModel } from "./load.js";

/** Local servers ignore the key, but the OpenAI client refuses an empty one. */
const PLACEHOLDER_KEY = "not-needed";

export function createChatModel(m: ResolvedModel, opts: { streaming?: boolean } = {}): ChatOpenAI {
  return new ChatOpenAI({
    model: m.model,
    apiKey: m.apiKey ?? PLACEHOLDER_KEY,
    configuration: { baseURL: m.baseUrl },
    // Chat completions, not the Responses API: that is what OpenAI-compatible servers implement.
    useResponsesApi: false,
    streaming: opts.streaming ?? true,
    streamUsage: true,
    // Retries are ours (LLMErrorHandling middleware): one place decides backoff and the final message.
    maxRetries: 0,
    timeout: m.timeoutMs,
    ...(m.temperature !== undefined ? { temperature: m.temperature } : {}),
    ...(m.maxTokens !== undefined ? { maxTokens: m.maxTokens } : {}),
  });
}
