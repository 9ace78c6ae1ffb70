// How servers state a model's context window, as their documentation records the answers (the source is cited next to
// each; long fields the readers never look at are trimmed, marked "…"). The model ids are the recordings'.

/** vLLM `GET /v1/models`: ModelList of ModelCard (vllm/entrypoints/openai/protocol.py: `max_model_len`). */
export const VLLM_MODELS = {
  object: "list",
  data: [
    {
      id: "Qwen/Qwen2.5-Coder-7B-Instruct",
      object: "model",
      created: 1733000000,
      owned_by: "vllm",
      root: "Qwen/Qwen2.5-Coder-7B-Instruct",
      parent: null,
      max_model_len: 32768,
      permission: [
        {
          id: "modelperm-6d1c4b5e8f0a4e2b9c3d7a1f2e4b6c8d",
          object: "model_permission",
          created: 1733000000,
          allow_create_engine: false,
          allow_sampling: true,
          allow_logprobs: true,
          allow_search_indices: false,
          allow_view: true,
          allow_fine_tuning: false,
          organization: "*",
          group: null,
          is_blocking: false,
        },
      ],
    },
  ],
};

/** OpenRouter `GET /api/v1/models` (openrouter.ai/docs, API reference "List available models": `context_length`, `top_provider`). */
export const OPENROUTER_MODELS = {
  data: [
    {
      id: "openai/gpt-4o-mini",
      canonical_slug: "openai/gpt-4o-mini",
      hugging_face_id: null,
      name: "OpenAI: GPT-4o-mini",
      created: 1721260800,
      description: "GPT-4o mini is OpenAI's newest model after GPT-4 Omni, supporting both text and image inputs …",
      context_length: 128000,
      architecture: { modality: "text+image->text", input_modalities: ["text", "image"], output_modalities: ["text"], tokenizer: "GPT", instruct_type: null },
      pricing: { prompt: "0.00000015", completion: "0.0000006", request: "0", image: "0.000217", web_search: "0", internal_reasoning: "0" },
      top_provider: { context_length: 128000, max_completion_tokens: 16384, is_moderated: true },
      per_request_limits: null,
      supported_parameters: ["max_tokens", "temperature", "tools", "tool_choice", "response_format"],
    },
  ],
};

/** Together AI `GET /v1/models`: a bare array (docs.together.ai API reference "List all models": `context_length`). */
export const TOGETHER_MODELS = [
  {
    id: "meta-llama/Llama-3.3-70B-Instruct-Turbo",
    object: "model",
    created: 1733443923,
    type: "chat",
    running: false,
    display_name: "Meta Llama 3.3 70B Instruct Turbo",
    organization: "Meta",
    link: "https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct-Turbo",
    license: "llama3.3",
    context_length: 131072,
    config: { chat_template: "…", stop: ["<|eot_id|>", "<|eom_id|>"], bos_token: "<|begin_of_text|>", eos_token: "<|end_of_text|>" },
    pricing: { hourly: 0, input: 0.88, output: 0.88, base: 0, finetune: 0 },
  },
];

/** LM Studio `GET /api/v0/models` (lmstudio-ai/docs, REST API v0 "List all loaded and downloaded models"). */
export const LMSTUDIO_MODELS = {
  object: "list",
  data: [
    {
      id: "qwen2-vl-7b-instruct",
      object: "model",
      type: "vlm",
      publisher: "mlx-community",
      arch: "qwen2_vl",
      compatibility_type: "mlx",
      quantization: "4bit",
      state: "not-loaded",
      max_context_length: 32768,
    },
    {
      id: "meta-llama-3.1-8b-instruct",
      object: "model",
      type: "llm",
      publisher: "lmstudio-community",
      arch: "llama",
      compatibility_type: "gguf",
      quantization: "Q4_K_M",
      state: "not-loaded",
      max_context_length: 131072,
    },
  ],
};
/** LM Studio's OpenAI list (`/v1/models`) names the models and nothing more (its docs, OpenAI compatibility). */
export const LMSTUDIO_OPENAI_MODELS = { object: "list", data: [{ id: "meta-llama-3.1-8b-instruct", object: "model", owned_by: "organization_owner" }] };

/** llama.cpp server `GET /props` (ggml-org/llama.cpp tools/server/README.md, "GET /props"; `params` trimmed). */
export const LLAMACPP_PROPS = {
  default_generation_settings: {
    id: 0,
    id_task: -1,
    n_ctx: 1024,
    speculative: false,
    is_processing: false,
    params: { n_predict: -1, seed: 4294967295, temperature: 0.800000011920929, top_k: 40, top_p: 0.949999988079071, min_p: 0.05000000074505806, max_tokens: -1, stream: true },
    prompt: "",
    next_token: { has_next_token: true, has_new_line: false, n_remain: -1, n_decoded: 0, stopping_word: "" },
  },
  total_slots: 1,
  model_path: "../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf",
  chat_template: "...",
  build_info: "b(build number)-(build commit hash)",
};
/** llama.cpp server `GET /v1/models` (same README): `n_ctx_train` is the trained length, not the served window. */
export const LLAMACPP_OPENAI_MODELS = {
  object: "list",
  data: [
    {
      id: "../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf",
      object: "model",
      created: 1735142223,
      owned_by: "llamacpp",
      meta: { vocab_type: 2, n_vocab: 128256, n_ctx_train: 131072, n_embd: 4096, n_params: 8030261312, size: 4912898304 },
    },
  ],
};

/** Ollama `POST /api/show` (ollama/ollama docs/api.md, "Show Model Information"): no num_ctx in `parameters`. */
export const OLLAMA_SHOW = {
  modelfile:
    '# Modelfile generated by "ollama show"\n# To build a new Modelfile based on this one, replace the FROM line with:\n# FROM llava:latest\n\nFROM /Users/matt/.ollama/models/blobs/sha256:200765e1283640ffbd013184bf496e261032fa75b99498a9613be4e94d63ad52\nTEMPLATE """{{ .System }}\nUSER: {{ .Prompt }}\nASSISTANT: """\nPARAMETER num_ctx 4096\nPARAMETER stop "</s>"\nPARAMETER stop "USER:"\nPARAMETER stop "ASSISTANT:"',
  parameters:
    'num_keep                       24\nstop                           "<|start_header_id|>"\nstop                           "<|end_header_id|>"\nstop                           "<|eot_id|>"',
  template: "{{ if .System }}<|start_header_id|>system<|end_header_id|>\n\n{{ .System }}<|eot_id|>{{ end }}…",
  details: { parent_model: "", format: "gguf", family: "llama", families: ["llama"], parameter_size: "8.0B", quantization_level: "Q4_0" },
  model_info: {
    "general.architecture": "llama",
    "general.file_type": 2,
    "general.parameter_count": 8030261248,
    "general.quantization_version": 2,
    "llama.attention.head_count": 32,
    "llama.attention.head_count_kv": 8,
    "llama.attention.layer_norm_rms_epsilon": 0.00001,
    "llama.block_count": 32,
    "llama.context_length": 8192,
    "llama.embedding_length": 4096,
    "llama.feed_forward_length": 14336,
    "llama.rope.dimension_count": 128,
    "llama.rope.freq_base": 500000,
    "llama.vocab_size": 128256,
    "tokenizer.ggml.bos_token_id": 128000,
    "tokenizer.ggml.eos_token_id": 128009,
    "tokenizer.ggml.merges": [],
    "tokenizer.ggml.model": "gpt2",
    "tokenizer.ggml.pre": "llama-bpe",
    "tokenizer.ggml.token_type": [],
    "tokenizer.ggml.tokens": [],
  },
};
/** Ollama `POST /api/show` of a model whose model file sets num_ctx (ollama4j's documentation, "Get model details"). */
export const OLLAMA_SHOW_NUM_CTX = {
  license: "LLAMA 2 COMMUNITY LICENSE AGREEMENT …",
  modelfile: '# Modelfile generated by "ollama show"\n…\nPARAMETER num_ctx 4096\nPARAMETER stop "[INST]"\nPARAMETER stop "[/INST]"',
  parameters:
    "num_ctx                        4096\nstop                           [INST]\nstop                           [/INST]\nstop                           \u003c\u003cSYS\u003e\u003e\nstop                           \u003c\u003c/SYS\u003e\u003e",
  template: "[INST] \u003c\u003cSYS\u003e\u003e{{ .System }}\u003c\u003c/SYS\u003e\u003e\n\n{{ .Prompt }} [/INST]\n",
};
/**
 * Ollama `GET /api/ps` (docs/api.md, "List Running Models"), as newer servers answer it: with the loaded model's
 * `context_length` (the CONTEXT column of `ollama ps` in docs/context-length.mdx).
 */
export const OLLAMA_PS = {
  models: [
    {
      name: "mistral:latest",
      model: "mistral:latest",
      size: 5137025024,
      digest: "2ae6f6dd7a3dd734790bbbf58b8909a606e0e7e97e94b7604e0aa7ae4490e6d8",
      details: { parent_model: "", format: "gguf", family: "llama", families: ["llama"], parameter_size: "7.2B", quantization_level: "Q4_0" },
      expires_at: "2024-06-04T14:38:31.83753-07:00",
      size_vram: 5137025024,
      context_length: 32768,
    },
  ],
};
/** Ollama's OpenAI list (`/v1/models`): ids only (docs/openai.md). */
export const OLLAMA_OPENAI_MODELS = { object: "list", data: [{ id: "llama3.2", object: "model", created: 1718141294, owned_by: "library" }] };

/**
 * vLLM's answer to a request past `max_model_len`: HTTP 400 with its ErrorResponse (vllm/entrypoints/openai
 * serving_engine.py, the words OpenAI uses for `context_length_exceeded`).
 */
export const VLLM_OVERFLOW_BODY = {
  object: "error",
  message:
    "This model's maximum context length is 4096 tokens. However, you requested 5211 tokens (4187 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.",
  type: "BadRequestError",
  param: null,
  code: 400,
};
