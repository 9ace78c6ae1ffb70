// Provider fixtures: each provider's answers in the framing its server really sends, taken from recordings (the
// source is cited next to each). Only the payload is ours — the tool call is our `bash` tool with our command, and
// the text is ours — so that a real `deerflow run` can act on it; ids, field order, extra fields, keep-alive
// comments, usage placement and the way fragments are cut are the recording's.
import type { RawReply } from "../support/openai-server.js";

type Json = Record<string, unknown>;
type Piece = Json | string;

/** SSE body: objects become `data: {json}` events, strings are written verbatim (comments, [DONE], odd framing). */
export function sse(pieces: Piece[], eol = "\n\n"): string[] {
  return pieces.map((p) => (typeof p === "string" ? p : `data: ${JSON.stringify(p)}${eol}`));
}
const DONE = "data: [DONE]\n\n";

/** A plain streamed chunk of the test model (no provider's quirks): for tests that script the stream by hand. */
export const streamChunk = (delta: Json, finish: string | null = null) => ({
  id: "c1",
  object: "chat.completion.chunk",
  created: 1,
  model: "test-model",
  choices: [{ index: 0, delta, finish_reason: finish }],
});

export function rawSse(pieces: Piece[], extra: Partial<RawReply> = {}): RawReply {
  return { raw: sse(pieces), ...extra };
}
export function rawJson(body: Json, extra: Partial<RawReply> = {}): RawReply {
  return { raw: [JSON.stringify(body)], headers: { "content-type": "application/json" }, ...extra };
}

/** Split a string in n pieces (as providers cut argument strings). */
function cut(s: string, n: number): string[] {
  const size = Math.ceil(s.length / n);
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}
const words = (t: string) => t.match(/\S*\s*/g)!.filter(Boolean);

export interface ProviderFixture {
  name: string;
  /** Where the framing comes from. */
  source: string;
  /** What this provider does differently (docs/providers.md). */
  quirk: string;
  /** Extra per-model configuration this provider needs (.deerflowrc `models.<name>`). */
  config?: Json;
  /** The id the provider put on its tool call (what the model must see again). */
  callId: string;
  toolTurn(command: string): RawReply;
  answerTurn(text: string): RawReply;
  /** The provider sends no usage: deerflow must estimate. */
  noUsage?: boolean;
  /** Reasoning the model produced on the tool turn (kept out of final_text; passed back where configured). */
  reasoning?: string;
}

const args = (command: string) => JSON.stringify({ command });

export const PROVIDERS: ProviderFixture[] = [
  {
    name: "OpenAI",
    // yomorun/yomo pkg/bridge/mock/data.go (recorded gpt-4o-2024-05-13 stream: "usage":null on every chunk,
    // logprobs, system_fingerprint) and openai-node's documented tool-call framing (id+name first, then fragments).
    source: "yomorun/yomo pkg/bridge/mock/data.go",
    quirk: "reference framing; usage only in a final chunk with empty `choices` (stream_options.include_usage)",
    callId: "call_9blY98pEJe6mXGKivCZyl61v",
    toolTurn(command) {
      const head = { id: "chatcmpl-9blY98pEJe6mXGKivCZyl61vxaUFq", object: "chat.completion.chunk", created: 1718787945, model: "gpt-4o-2024-05-13", system_fingerprint: "fp_f4e629d0a5" };
      const c = (delta: Json, finish: string | null = null) => ({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null });
      return rawSse([
        c({ role: "assistant", content: null, tool_calls: [{ index: 0, id: this.callId, type: "function", function: { name: "bash", arguments: "" } }] }),
        ...cut(args(command), 4).map((a) => c({ tool_calls: [{ index: 0, function: { arguments: a } }] })),
        c({}, "tool_calls"),
        { ...head, choices: [], usage: { prompt_tokens: 81, completion_tokens: 19, total_tokens: 100 } },
        DONE,
      ]);
    },
    answerTurn(text) {
      const head = { id: "chatcmpl-9blY98pEJe6mXGKivCZyl61vxaUFq", object: "chat.completion.chunk", created: 1718787945, model: "gpt-4o-2024-05-13", system_fingerprint: "fp_f4e629d0a5" };
      const c = (delta: Json, finish: string | null = null) => ({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null });
      return rawSse([
        c({ role: "assistant", content: "" }),
        ...words(text).map((w) => c({ content: w })),
        c({}, "stop"),
        { ...head, choices: [], usage: { prompt_tokens: 120, completion_tokens: 6, total_tokens: 126 } },
        DONE,
      ]);
    },
  },
  {
    name: "Azure OpenAI",
    // vercel/ai packages/openai-compatible/src/chat/__fixtures__/azure-text.chunks.txt: a first chunk with empty
    // `choices`, empty id and `prompt_filter_results`; `content_filter_results` on every choice; `obfuscation`; a
    // trailing choice with no `delta` at all (content_filter_offsets).
    source: "vercel/ai packages/openai-compatible/src/chat/__fixtures__/azure-text.chunks.txt",
    quirk: "first chunk has no choices and an empty id; a late choice without `delta` (content filter offsets)",
    callId: "call_azure_7Qx2",
    toolTurn(command) {
      return rawSse([
        ...azureHead(),
        azure({ content: null, refusal: null, role: "assistant", tool_calls: [{ index: 0, id: this.callId, type: "function", function: { name: "bash", arguments: "" } }] }),
        ...cut(args(command), 3).map((a) => azure({ tool_calls: [{ index: 0, function: { arguments: a } }] })),
        azure({}, "tool_calls"),
        ...azureTail(),
        DONE,
      ]);
    },
    answerTurn(text) {
      return rawSse([...azureHead(), azure({ content: "", refusal: null, role: "assistant" }), ...words(text).map((w) => azure({ content: w })), azure({}, "stop"), ...azureTail(), DONE]);
    },
  },
  {
    name: "Ollama",
    // g0t4/ask-openai.nvim lua/ask-openai/backends/sse_parse_notes.md (qwen2.5-coder via Ollama /v1): ids
    // `chatcmpl-<n>` with small n (reused across answers), a whole tool call in one chunk, role repeated on the
    // finish chunk, no usage unless asked (and then none on older servers).
    source: "g0t4/ask-openai.nvim lua/ask-openai/backends/sse_parse_notes.md",
    quirk: "reuses completion ids (`chatcmpl-<0..998>`); whole tool call in one chunk; no usage",
    callId: "call_hk81qg8b",
    noUsage: true,
    toolTurn(command) {
      const c = (delta: Json, finish: string | null = null) => ({
        id: "chatcmpl-838",
        object: "chat.completion.chunk",
        created: 1744438886,
        model: "qwen2.5-coder:7b-instruct-q8_0",
        system_fingerprint: "fp_ollama",
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
      return rawSse([
        c({ role: "assistant", content: "", tool_calls: [{ id: this.callId, index: 0, type: "function", function: { name: "bash", arguments: args(command) } }] }),
        c({ role: "assistant", content: "" }, "tool_calls"),
        DONE,
      ]);
    },
    answerTurn(text) {
      const c = (delta: Json, finish: string | null = null) => ({
        id: "chatcmpl-838",
        object: "chat.completion.chunk",
        created: 1744445346,
        model: "qwen2.5-coder:7b-instruct-q8_0",
        system_fingerprint: "fp_ollama",
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
      return rawSse([...words(text).map((w) => c({ role: "assistant", content: w })), c({ role: "assistant", content: "" }, "stop"), DONE]);
    },
  },
  {
    name: "vLLM",
    // vercel/ai packages/groq/src/groq-chat-language-model.test.ts ("should not duplicate tool calls when there is an
    // additional empty chunk"): a vLLM-served meta/llama-3.1-8b-instruct:fp8 — `chat-` ids, usage on EVERY chunk
    // (continuous usage stats), the name in a fragment without arguments, an empty-arguments fragment on the finish
    // chunk, vLLM's extra `stop_reason`, then a choices-less usage chunk.
    source: "vercel/ai packages/groq/src/groq-chat-language-model.test.ts",
    quirk: "usage on every chunk; name announced without arguments; empty fragment on the finish chunk; `stop_reason`",
    callId: "chatcmpl-tool-b3b307239370432d9910d4b79b4dbbaa",
    toolTurn(command) {
      const c = (choice: Json, usage: number) => ({
        id: "chat-2267f7e2910a4254bac0650ba74cfc1c",
        object: "chat.completion.chunk",
        created: 1733162241,
        model: "meta/llama-3.1-8b-instruct:fp8",
        choices: [{ index: 0, logprobs: null, finish_reason: null, ...choice }],
        usage: { prompt_tokens: 226, total_tokens: 226 + usage, completion_tokens: usage },
      });
      const frags = cut(args(command), 4);
      return rawSse([
        c({ delta: { role: "assistant", content: "" } }, 0),
        c({ delta: { tool_calls: [{ id: this.callId, type: "function", index: 0, function: { name: "bash" } }] } }, 7),
        ...frags.map((a, i) => c({ delta: { tool_calls: [{ index: 0, function: { arguments: a } }] } }, 15 + i)),
        c({ delta: { tool_calls: [{ index: 0, function: { arguments: "" } }] }, finish_reason: "tool_calls", stop_reason: 128008 }, 20),
        {
          id: "chat-2267f7e2910a4254bac0650ba74cfc1c",
          object: "chat.completion.chunk",
          created: 1733162241,
          model: "meta/llama-3.1-8b-instruct:fp8",
          choices: [],
          usage: { prompt_tokens: 226, total_tokens: 246, completion_tokens: 20 },
        },
        DONE,
      ]);
    },
    answerTurn(text) {
      const c = (choice: Json, usage: number) => ({
        id: "chat-2267f7e2910a4254bac0650ba74cfc1c",
        object: "chat.completion.chunk",
        created: 1733162241,
        model: "meta/llama-3.1-8b-instruct:fp8",
        choices: [{ index: 0, logprobs: null, finish_reason: null, ...choice }],
        usage: { prompt_tokens: 300, total_tokens: 300 + usage, completion_tokens: usage },
      });
      return rawSse([
        c({ delta: { role: "assistant", content: "" } }, 0),
        ...words(text).map((w, i) => c({ delta: { content: w } }, i + 1)),
        c({ delta: {}, finish_reason: "stop", stop_reason: null }, 8),
        DONE,
      ]);
    },
  },
  {
    name: "llama.cpp server",
    // g0t4/ask-openai.nvim lua/ask-openai/rewrites/harmony/NOTES.md (llama-server b6881, gpt-oss): `choices` first,
    // `content: null` on the role chunk, `reasoning_content` deltas, usage and `timings` on the finish chunk.
    source: "g0t4/ask-openai.nvim lua/ask-openai/rewrites/harmony/NOTES.md",
    quirk: "`reasoning_content` deltas; usage and `timings` on the finish chunk itself",
    callId: "DHvcEyFobkuV4Xu1QSYo4bqNv18TDqaA",
    reasoning: "The user wants a command run.",
    toolTurn(command) {
      const c = (choice: Json, extra: Json = {}) => ({
        choices: [{ finish_reason: null, index: 0, ...choice }],
        created: 1762593253,
        id: "chatcmpl-DHvcEyFobkuV4Xu1QSYo4bqNv18TDqaA",
        model: "gpt-oss:120b",
        system_fingerprint: "b6881-8b11deea4",
        object: "chat.completion.chunk",
        ...extra,
      });
      return rawSse([
        c({ delta: { role: "assistant", content: null } }),
        ...words(this.reasoning!).map((w) => c({ delta: { reasoning_content: w } })),
        c({ delta: { tool_calls: [{ index: 0, id: this.callId, type: "function", function: { name: "bash", arguments: "" } }] } }),
        ...cut(args(command), 3).map((a) => c({ delta: { tool_calls: [{ index: 0, function: { arguments: a } }] } })),
        c(
          { finish_reason: "tool_calls", delta: {} },
          { usage: { completion_tokens: 47, prompt_tokens: 1085, total_tokens: 1132 }, timings: { prompt_n: 1085, prompt_ms: 203.378, predicted_n: 47, predicted_ms: 933.63 } },
        ),
        DONE,
      ]);
    },
    answerTurn(text) {
      const c = (choice: Json, extra: Json = {}) => ({
        choices: [{ finish_reason: null, index: 0, ...choice }],
        created: 1754524122,
        id: "chatcmpl-yPk7z9nC22CofOlh100qQdHVEDMNYCb1",
        model: "gpt-oss:120b",
        system_fingerprint: "b6881-8b11deea4",
        object: "chat.completion.chunk",
        ...extra,
      });
      return rawSse([
        c({ delta: { role: "assistant", content: null } }),
        ...words(text).map((w) => c({ delta: { content: w } })),
        c({ finish_reason: "stop", delta: {} }, { usage: { completion_tokens: 7, prompt_tokens: 1200, total_tokens: 1207 }, timings: { prompt_n: 1200 } }),
        DONE,
      ]);
    },
  },
  {
    name: "LM Studio (non-streaming)",
    // raymondtruongdev/ChatBot lib/consts.dart (a recorded LM Studio /v1/chat/completions answer: model = the GGUF
    // path, `chatcmpl-<random>` id) and clementbolin/epitech-workshop-genai README_LMSTUDIO.md ("stream": false).
    source: "raymondtruongdev/ChatBot lib/consts.dart",
    quirk: 'run here with `"stream": false`: whole JSON answers, the model id is a file path',
    config: { stream: false },
    callId: "call_lmstudio_181934",
    toolTurn(command) {
      return rawJson({
        id: "chatcmpl-ezdun9glec5h6nkjyb89ni",
        object: "chat.completion",
        created: 1708671348,
        model: "C:\\Users\\tanph\\.cache\\lm-studio\\models\\TheBloke\\Llama-2-7B-Chat-GGUF\\llama-2-7b-chat.Q2_K.gguf",
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: "", tool_calls: [{ id: this.callId, type: "function", function: { name: "bash", arguments: args(command) } }] },
            finish_reason: "tool_calls",
          },
        ],
        usage: { prompt_tokens: 31, completion_tokens: 27, total_tokens: 58 },
      });
    },
    answerTurn(text) {
      return rawJson({
        id: "chatcmpl-ezdun9glec5h6nkjyb89ni",
        object: "chat.completion",
        created: 1708671348,
        model: "C:\\Users\\tanph\\.cache\\lm-studio\\models\\TheBloke\\Llama-2-7B-Chat-GGUF\\llama-2-7b-chat.Q2_K.gguf",
        choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
        usage: { prompt_tokens: 60, completion_tokens: 8, total_tokens: 68 },
      });
    },
  },
  {
    name: "DeepSeek (thinking)",
    // CaiZongyuan/agentscope-nextjs-ai-demo backend/docs/example-completions.md (recorded deepseek-reasoner stream:
    // uuid ids, `content: null` while `reasoning_content` streams, logprobs null). Thinking mode with tools needs the
    // reasoning sent back: configured by `passBackReasoning` (on by default for api.deepseek.com).
    source: "CaiZongyuan/agentscope-nextjs-ai-demo backend/docs/example-completions.md",
    quirk: "`reasoning_content` must be sent back on tool-call turns (`passBackReasoning`)",
    config: { passBackReasoning: true },
    callId: "call_00_ds7Kq1",
    reasoning: "好的，the user wants me to run a command.",
    toolTurn(command) {
      const c = (delta: Json, finish: string | null = null) => ({
        id: "0e9642e9-9af6-4eb1-9c13-8c90d6b13ef3",
        object: "chat.completion.chunk",
        created: 1764042665,
        model: "deepseek-reasoner",
        system_fingerprint: "fp_ffc7281d48_prod0820_fp8_kvcache",
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      });
      return rawSse([
        c({ role: "assistant", content: null, reasoning_content: "" }),
        ...words(this.reasoning!).map((w) => c({ content: null, reasoning_content: w })),
        c({ tool_calls: [{ index: 0, id: this.callId, type: "function", function: { name: "bash", arguments: "" } }] }),
        ...cut(args(command), 3).map((a) => c({ tool_calls: [{ index: 0, function: { arguments: a } }] })),
        c({ content: "", reasoning_content: null }, "tool_calls"),
        {
          id: "0e9642e9-9af6-4eb1-9c13-8c90d6b13ef3",
          object: "chat.completion.chunk",
          created: 1764042665,
          model: "deepseek-reasoner",
          choices: [],
          usage: { prompt_tokens: 90, completion_tokens: 40, total_tokens: 130, completion_tokens_details: { reasoning_tokens: 12 } },
        },
        DONE,
      ]);
    },
    answerTurn(text) {
      const c = (delta: Json, finish: string | null = null) => ({
        id: "0e9642e9-9af6-4eb1-9c13-8c90d6b13ef3",
        object: "chat.completion.chunk",
        created: 1764042666,
        model: "deepseek-reasoner",
        system_fingerprint: "fp_ffc7281d48_prod0820_fp8_kvcache",
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      });
      return rawSse([
        c({ role: "assistant", content: null, reasoning_content: "" }),
        c({ content: null, reasoning_content: "Done thinking." }),
        ...words(text).map((w) => c({ content: w, reasoning_content: null })),
        c({ content: "" }, "stop"),
        {
          id: "0e9642e9-9af6-4eb1-9c13-8c90d6b13ef3",
          object: "chat.completion.chunk",
          created: 1764042666,
          model: "deepseek-reasoner",
          choices: [],
          usage: { prompt_tokens: 150, completion_tokens: 12, total_tokens: 162 },
        },
        DONE,
      ]);
    },
  },
  {
    name: "OpenRouter",
    // openrouter.ai/docs/api_reference/streaming: ": OPENROUTER PROCESSING" keep-alive comments between events,
    // `gen-` ids, a `provider` field, `reasoning` (not reasoning_content), usage in the last chunk.
    source: "https://openrouter.ai/docs/api_reference/streaming",
    quirk: "`: OPENROUTER PROCESSING` keep-alive comments; `reasoning` field; errors can arrive mid-stream as data",
    callId: "toolu_vrtx_01Ab",
    reasoning: "Run it.",
    toolTurn(command) {
      const c = (delta: Json, finish: string | null = null) => ({
        id: "gen-1745512345-AbCdEfGhIjKl",
        provider: "Anthropic",
        model: "anthropic/claude-3.5-sonnet",
        object: "chat.completion.chunk",
        created: 1745512345,
        choices: [{ index: 0, delta, finish_reason: finish, native_finish_reason: finish, logprobs: null }],
      });
      return rawSse([
        ": OPENROUTER PROCESSING\n\n",
        ": OPENROUTER PROCESSING\n\n",
        c({ role: "assistant", content: "", reasoning: this.reasoning }),
        c({ role: "assistant", content: null, tool_calls: [{ index: 0, id: this.callId, type: "function", function: { name: "bash", arguments: "" } }] }),
        ": OPENROUTER PROCESSING\n\n",
        ...cut(args(command), 3).map((a) => c({ role: "assistant", content: null, tool_calls: [{ index: 0, type: "function", function: { arguments: a } }] })),
        c({ role: "assistant", content: "" }, "tool_calls"),
        {
          id: "gen-1745512345-AbCdEfGhIjKl",
          provider: "Anthropic",
          model: "anthropic/claude-3.5-sonnet",
          object: "chat.completion.chunk",
          created: 1745512345,
          choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null, native_finish_reason: null, logprobs: null }],
          usage: { prompt_tokens: 400, completion_tokens: 30, total_tokens: 430, cost: 0.00165 },
        },
        DONE,
      ]);
    },
    answerTurn(text) {
      const c = (delta: Json, finish: string | null = null) => ({
        id: "gen-1745512399-ZyXwVuTsRqPo",
        provider: "Anthropic",
        model: "anthropic/claude-3.5-sonnet",
        object: "chat.completion.chunk",
        created: 1745512399,
        choices: [{ index: 0, delta, finish_reason: finish, native_finish_reason: finish, logprobs: null }],
      });
      return rawSse([
        ": OPENROUTER PROCESSING\n\n",
        ...words(text).map((w) => c({ role: "assistant", content: w })),
        c({ role: "assistant", content: "" }, "stop"),
        {
          id: "gen-1745512399-ZyXwVuTsRqPo",
          provider: "Anthropic",
          model: "anthropic/claude-3.5-sonnet",
          object: "chat.completion.chunk",
          created: 1745512399,
          choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null, native_finish_reason: null, logprobs: null }],
          usage: { prompt_tokens: 450, completion_tokens: 8, total_tokens: 458 },
        },
        DONE,
      ]);
    },
  },
  {
    name: "Groq",
    // vercel/ai packages/groq/src/groq-chat-language-model.test.ts ("should stream tool deltas"): gemma2-9b-it on
    // Groq, usage inside `x_groq` on the finish chunk (no top-level usage), `fp_` fingerprints.
    source: "vercel/ai packages/groq/src/groq-chat-language-model.test.ts",
    quirk: "usage only inside `x_groq` on the finish chunk",
    callId: "call_O17Uplv4lJvD6DVdIvFFeRMw",
    toolTurn(command) {
      const c = (choice: Json, extra: Json = {}) => ({
        id: "chatcmpl-e7f8e220-656c-4455-a132-dacfc1370798",
        object: "chat.completion.chunk",
        created: 1711357598,
        model: "gemma2-9b-it",
        system_fingerprint: "fp_3bc1b5746c",
        choices: [{ index: 0, finish_reason: null, ...choice }],
        ...extra,
      });
      return rawSse([
        c({ delta: { role: "assistant", content: null, tool_calls: [{ index: 0, id: this.callId, type: "function", function: { name: "bash", arguments: "" } }] } }),
        ...cut(args(command), 5).map((a) => c({ delta: { tool_calls: [{ index: 0, function: { arguments: a } }] } })),
        c(
          { delta: {}, logprobs: null, finish_reason: "tool_calls" },
          {
            x_groq: {
              id: "req_01jadadp0femyae9kav1gpkhe8",
              usage: { queue_time: 0.061348671, prompt_tokens: 18, prompt_time: 0.000211569, completion_tokens: 439, completion_time: 0.798181818, total_tokens: 457, total_time: 0.798393387 },
            },
          },
        ),
        DONE,
      ]);
    },
    answerTurn(text) {
      const c = (choice: Json, extra: Json = {}) => ({
        id: "chatcmpl-e7f8e220-656c-4455-a132-dacfc1370798",
        object: "chat.completion.chunk",
        created: 1711357598,
        model: "gemma2-9b-it",
        system_fingerprint: "fp_3bc1b5746c",
        choices: [{ index: 0, finish_reason: null, ...choice }],
        ...extra,
      });
      return rawSse([
        c({ delta: { role: "assistant", content: "" }, logprobs: null }),
        ...words(text).map((w) => c({ delta: { content: w }, logprobs: null })),
        c({ delta: {}, logprobs: null, finish_reason: "stop" }, { x_groq: { id: "req_01jadadp0femyae9kav1gpkhe9", usage: { prompt_tokens: 500, completion_tokens: 8, total_tokens: 508 } } }),
        DONE,
      ]);
    },
  },
  {
    name: "Together",
    // lzell/AIProxySwift Tests/AIProxyTests/TogetherAIChatCompletionStreamingChunkTests.swift (recorded Together
    // chunks): a legacy `text` next to `delta`, `token_id`, `tool_calls: null`, `seed`, finish_reason "eos", usage on
    // the last chunk.
    source: "lzell/AIProxySwift Tests/AIProxyTests/TogetherAIChatCompletionStreamingChunkTests.swift",
    quirk: "`text`/`token_id` next to `delta`, `tool_calls: null` on text chunks, finish_reason `eos`",
    callId: "call_together_8b43a5",
    toolTurn(command) {
      const c = (choice: Json, usage: Json | null = null) => ({
        id: "8b43a5cfadf99e5c-SJC",
        object: "chat.completion.chunk",
        created: 1723834621,
        choices: [{ index: 0, text: "", logprobs: null, finish_reason: null, seed: null, ...choice }],
        model: "meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo",
        usage,
      });
      return rawSse([
        c({ delta: { token_id: 128010, role: "assistant", content: "", tool_calls: [{ index: 0, id: this.callId, type: "function", function: { name: "bash", arguments: "" } }] } }),
        ...cut(args(command), 3).map((a, i) => c({ delta: { token_id: 30 + i, role: "assistant", content: "", tool_calls: [{ index: 0, function: { arguments: a } }] } })),
        c(
          { finish_reason: "tool_calls", seed: 2039908639335532000, delta: { token_id: 128009, role: "assistant", content: "", tool_calls: null } },
          { prompt_tokens: 12, completion_tokens: 27, total_tokens: 39 },
        ),
        DONE,
      ]);
    },
    answerTurn(text) {
      const c = (choice: Json, usage: Json | null = null) => ({
        id: "8b43a5cfadf99e5c-SJC",
        object: "chat.completion.chunk",
        created: 1723834621,
        choices: [{ index: 0, logprobs: null, finish_reason: null, seed: null, ...choice }],
        model: "meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo",
        usage,
      });
      return rawSse([
        ...words(text).map((w, i) => c({ text: w, delta: { token_id: 30 + i, role: "assistant", content: w, tool_calls: null } })),
        c(
          { text: "", finish_reason: "eos", seed: 2039908639335532000, delta: { token_id: 128009, role: "assistant", content: "", tool_calls: null } },
          { prompt_tokens: 40, completion_tokens: 7, total_tokens: 47 },
        ),
        DONE,
      ]);
    },
  },
  {
    name: "Mistral",
    // vercel/ai packages/openai-compatible/src/chat/__fixtures__/issue-13703-mistral-thinking.chunks.txt (recorded
    // mistral-small-latest): `content` as an ARRAY of thinking/text blocks, a padding field `p`, usage on the finish
    // chunk. LangChain drops array content ("non-string content"); the model layer flattens it.
    source: "vercel/ai packages/openai-compatible/src/chat/__fixtures__/issue-13703-mistral-thinking.chunks.txt",
    quirk: "`content` as an array of thinking/text blocks; whole tool calls in one chunk",
    callId: "D681PevKs",
    reasoning: "Okay, the user is asking for a command.",
    toolTurn(command) {
      const c = (choice: Json, extra: Json = {}) => ({
        id: "ed56a5f5c9254b8981e89c2ecfdd6a8d",
        object: "chat.completion.chunk",
        created: 1784737087,
        model: "mistral-small-latest",
        choices: [{ index: 0, finish_reason: null, ...choice }],
        p: "abcdefghijklmnop",
        ...extra,
      });
      return rawSse([
        c({ delta: { role: "assistant", content: "" } }),
        ...words(this.reasoning!).map((w) => c({ delta: { content: [{ type: "thinking", thinking: [{ type: "text", text: w }], closed: true }] } })),
        c({ delta: { tool_calls: [{ id: this.callId, function: { name: "bash", arguments: args(command) }, index: 0 }] } }),
        c({ delta: { content: "" }, finish_reason: "tool_calls" }, { usage: { prompt_tokens: 28, total_tokens: 167, completion_tokens: 139, prompt_tokens_details: { cached_tokens: 0 } } }),
        DONE,
      ]);
    },
    answerTurn(text) {
      const c = (choice: Json, extra: Json = {}) => ({
        id: "ed56a5f5c9254b8981e89c2ecfdd6a8d",
        object: "chat.completion.chunk",
        created: 1784737088,
        model: "mistral-small-latest",
        choices: [{ index: 0, finish_reason: null, ...choice }],
        p: "abcd",
        ...extra,
      });
      const [first, ...rest] = words(text);
      return rawSse([
        c({ delta: { role: "assistant", content: "" } }),
        // The recording's turn from thinking to text: one chunk carrying the last thinking block AND the first text.
        c({
          delta: {
            content: [
              { type: "thinking", thinking: [{ type: "text", text: "1." }], closed: true },
              { type: "text", text: first },
            ],
          },
        }),
        ...rest.map((w) => c({ delta: { content: w } })),
        c({ delta: { content: "" }, finish_reason: "stop" }, { usage: { prompt_tokens: 200, total_tokens: 210, completion_tokens: 10 } }),
        DONE,
      ]);
    },
  },
  {
    name: "Gemini (OpenAI compatibility)",
    // Gemini's /v1beta/openai endpoint sends tool calls without `index` (Sophomoresty/gemini-web2api PR #96 quotes the
    // behaviour; the ids `function-call-<n>` are from jyasuu/llm-playground-rs ISSUES.md, a captured Gemini request).
    source: "jyasuu/llm-playground-rs ISSUES.md; Sophomoresty/gemini-web2api#96",
    quirk: "tool-call fragments without `index`; ids `function-call-<n>`",
    callId: "function-call-1758708579654",
    toolTurn(command) {
      const c = (delta: Json, finish: string | null = null, extra: Json = {}) => ({
        choices: [{ delta, finish_reason: finish, index: 0 }],
        created: 1758708579,
        id: "eZPTaKqCNo7Ez7IPqfWk8Aw",
        model: "gemini-2.0-flash",
        object: "chat.completion.chunk",
        ...extra,
      });
      const [a1, a2] = cut(args(command), 2);
      return rawSse([
        c({ role: "assistant", tool_calls: [{ function: { arguments: a1, name: "bash" }, id: this.callId, type: "function" }] }),
        c({ role: "assistant", tool_calls: [{ function: { arguments: a2 }, type: "function" }] }),
        c({ role: "assistant" }, "tool_calls", { usage: { completion_tokens: 12, prompt_tokens: 80, total_tokens: 92 } }),
        DONE,
      ]);
    },
    answerTurn(text) {
      const c = (delta: Json, finish: string | null = null, extra: Json = {}) => ({
        choices: [{ delta, finish_reason: finish, index: 0 }],
        created: 1758708580,
        id: "fZPTaKqCNo7Ez7IPqfWk8Aw",
        model: "gemini-2.0-flash",
        object: "chat.completion.chunk",
        ...extra,
      });
      return rawSse([c({ content: text, role: "assistant" }), c({ role: "assistant" }, "stop", { usage: { completion_tokens: 6, prompt_tokens: 120, total_tokens: 126 } }), DONE]);
    },
  },
  {
    name: "xAI",
    // vercel/ai packages/openai-compatible/src/chat/__fixtures__/xai-tool-call.chunks.txt (recorded grok-3-mini):
    // reasoning_content chunks with NO finish_reason key at all, role after the content key, uuid ids. xAI rejects
    // `name` on assistant messages — the request side is checked too.
    source: "vercel/ai packages/openai-compatible/src/chat/__fixtures__/xai-tool-call.chunks.txt",
    quirk: "rejects `name` on assistant messages; chunks without a `finish_reason` key; `reasoning_content`",
    callId: "call_46427107",
    reasoning: "First, the user is asking to run a command.",
    toolTurn(command) {
      const c = (choice: Json, extra: Json = {}) => ({
        id: "7027d986-3c59-a37a-9a5f-50713e01c8a6",
        object: "chat.completion.chunk",
        created: 1770772293,
        model: "grok-3-mini",
        choices: [{ index: 0, ...choice }],
        system_fingerprint: "fp_2a885414fb",
        ...extra,
      });
      const [first, ...rest] = words(this.reasoning!);
      return rawSse([
        c({ delta: { reasoning_content: first, role: "assistant" } }),
        ...rest.map((w) => c({ delta: { reasoning_content: w } })),
        c({ delta: { tool_calls: [{ id: this.callId, function: { name: "bash", arguments: args(command) }, index: 0, type: "function" }] } }),
        c({ delta: {}, finish_reason: "tool_calls" }, { usage: { prompt_tokens: 307, completion_tokens: 26, total_tokens: 588, completion_tokens_details: { reasoning_tokens: 255 } } }),
        DONE,
      ]);
    },
    answerTurn(text) {
      const c = (choice: Json, extra: Json = {}) => ({
        id: "acfa24c3-b556-0f2c-731e-64fb836d544b",
        object: "chat.completion.chunk",
        created: 1770772294,
        model: "grok-3-mini",
        choices: [{ index: 0, ...choice }],
        system_fingerprint: "fp_2a885414fb",
        ...extra,
      });
      return rawSse([
        c({ delta: { content: words(text)[0], role: "assistant" } }),
        ...words(text)
          .slice(1)
          .map((w) => c({ delta: { content: w } })),
        c({ delta: {}, finish_reason: "stop" }, { usage: { prompt_tokens: 350, completion_tokens: 6, total_tokens: 356 } }),
        DONE,
      ]);
    },
  },
  {
    name: "Fireworks",
    // boldsoftware/shelley llm/oai/oai_test.go (Fireworks framing): `finish_reason: ""` on every unfinished chunk,
    // the tool NAME split across fragments ("get_" + "weather"), usage in a choices-less chunk.
    source: "boldsoftware/shelley llm/oai/oai_test.go",
    quirk: '`finish_reason: ""` until the end; tool name split across fragments',
    callId: "call_0",
    reasoning: "think more",
    toolTurn(command) {
      const c = (delta: Json, finish = "") => ({ id: "chatcmpl-fw", model: "accounts/fireworks/models/test", choices: [{ index: 0, delta, finish_reason: finish }] });
      const [a1, a2] = cut(args(command), 2);
      return rawSse([
        c({ role: "assistant", reasoning_content: "think " }),
        c({ reasoning_content: "more" }),
        c({ tool_calls: [{ index: 0, id: this.callId, type: "function", function: { name: "ba", arguments: a1 } }] }),
        c({ tool_calls: [{ index: 0, function: { name: "sh", arguments: a2 } }] }, "tool_calls"),
        { id: "chatcmpl-fw", model: "accounts/fireworks/models/test", choices: [], usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 } },
        DONE,
      ]);
    },
    answerTurn(text) {
      const c = (delta: Json, finish = "") => ({ id: "chatcmpl-fw", model: "accounts/fireworks/models/test", choices: [{ index: 0, delta, finish_reason: finish }] });
      return rawSse([
        c({ role: "assistant", content: "" }),
        ...words(text).map((w) => c({ content: w })),
        c({}, "stop"),
        { id: "chatcmpl-fw", model: "accounts/fireworks/models/test", choices: [], usage: { prompt_tokens: 50, completion_tokens: 6, total_tokens: 56 } },
        DONE,
      ]);
    },
  },
  {
    name: "Anthropic (OpenAI compatibility)",
    // vercel/ai packages/openai-compatible/src/chat/__fixtures__/anthropic-fallback-tool-call.sse (recorded
    // claude-haiku-4-5 via Anthropic's OpenAI SDK compatibility): text before the call, the first call at `index: 1`,
    // empty-arguments fragments, `created: 0`, no usage.
    source: "vercel/ai packages/openai-compatible/src/chat/__fixtures__/anthropic-fallback-tool-call.sse",
    quirk: "first tool call at `index: 1`; empty fragments; no usage",
    callId: "toolu_sanitized",
    noUsage: true,
    toolTurn(command) {
      const c = (delta: Json, finish: string | null = null) => ({
        id: "msg_sanitized",
        object: "chat.completion.chunk",
        created: 0,
        model: "claude-haiku-4-5-20251001",
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
      return rawSse([
        c({ role: "assistant" }),
        c({ content: "Running" }),
        c({ content: " it." }),
        c({ tool_calls: [{ index: 1, id: this.callId, type: "function", function: { name: "bash", arguments: "" } }] }),
        c({ tool_calls: [{ index: 1, function: { arguments: "" } }] }),
        ...cut(args(command), 2).map((a) => c({ tool_calls: [{ index: 1, function: { arguments: a } }] })),
        c({}, "tool_calls"),
        "data: [DONE]\n",
      ]);
    },
    answerTurn(text) {
      const c = (delta: Json, finish: string | null = null) => ({
        id: "msg_sanitized",
        object: "chat.completion.chunk",
        created: 0,
        model: "claude-haiku-4-5-20251001",
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
      return rawSse([c({ role: "assistant" }), ...words(text).map((w) => c({ content: w })), c({}, "stop"), "data: [DONE]\n"]);
    },
  },
];

function azure(delta: Json, finish: string | null = null): Json {
  const safe = {
    hate: { filtered: false, severity: "safe" },
    self_harm: { filtered: false, severity: "safe" },
    sexual: { filtered: false, severity: "safe" },
    violence: { filtered: false, severity: "safe" },
  };
  return {
    choices: [{ content_filter_results: finish ? {} : safe, delta, finish_reason: finish, index: 0, logprobs: null }],
    created: 1762317021,
    id: "chatcmpl-test",
    model: "gpt-4",
    obfuscation: "NNpA6Dj2U",
    object: "chat.completion.chunk",
    system_fingerprint: null,
    usage: null,
  };
}
function azureHead(): Json[] {
  return [
    {
      choices: [],
      created: 0,
      id: "",
      model: "",
      object: "",
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: { hate: { filtered: false, severity: "safe" }, jailbreak: { filtered: false, detected: false } } }],
    },
  ];
}
function azureTail(): Json[] {
  return [
    {
      choices: [
        { content_filter_offsets: { check_offset: 0, start_offset: 0, end_offset: 11 }, content_filter_results: { hate: { filtered: false, severity: "safe" } }, finish_reason: null, index: 0 },
      ],
      created: 1762317021,
      id: "chatcmpl-test",
      model: "gpt-4",
      object: "chat.completion.chunk",
      system_fingerprint: null,
    },
    {
      choices: [],
      created: 1762317021,
      id: "chatcmpl-test",
      model: "gpt-4",
      obfuscation: "DjqQ9RbEQMJ3PX",
      object: "chat.completion.chunk",
      system_fingerprint: null,
      usage: { completion_tokens: 5, prompt_tokens: 15, total_tokens: 20, prompt_tokens_details: { audio_tokens: 0, cached_tokens: 0 } },
    },
  ];
}
