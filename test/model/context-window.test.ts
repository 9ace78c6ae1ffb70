// A model's window read from each server's recorded answer, and the probe that asks for it: over real loopback HTTP,
// only at the model's origin, within its deadline, the key on the requests to that origin only.
import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { windowInModelList, windowOfLlamaCppProps, windowOfOllamaPs, windowOfOllamaShow } from "../../src/model/context-window-parsers.js";
import { UNKNOWN_MODEL_WINDOW, modelWindow, noteWindowFromError, probeContextWindow } from "../../src/model/context-window.js";
import { listEndpointModels } from "../../src/model/discover.js";
import { type TestModelServer, startTestModelServer } from "../support/openai-server.js";
import * as F from "../providers/window-fixtures.js";

describe("each server's own words", () => {
  it("vLLM: max_model_len of the listed model", () => {
    expect(windowInModelList(F.VLLM_MODELS, "Qwen/Qwen2.5-Coder-7B-Instruct")).toBe(32768);
    expect(windowInModelList(F.VLLM_MODELS, "another-model")).toBeUndefined();
  });
  it("OpenRouter and Together AI: context_length (Together lists a bare array)", () => {
    expect(windowInModelList(F.OPENROUTER_MODELS, "openai/gpt-4o-mini")).toBe(128000);
    expect(windowInModelList(F.TOGETHER_MODELS, "meta-llama/Llama-3.3-70B-Instruct-Turbo")).toBe(131072);
  });
  it("OpenRouter: the top provider's window when it is smaller than the model's", () => {
    const entry = { ...F.OPENROUTER_MODELS.data[0]!, top_provider: { context_length: 65536, max_completion_tokens: 16384, is_moderated: true } };
    expect(windowInModelList({ data: [entry] }, "openai/gpt-4o-mini")).toBe(65536);
  });
  it("LM Studio: max_context_length in its REST list, a loaded model's loaded_context_length first", () => {
    expect(windowInModelList(F.LMSTUDIO_MODELS, "meta-llama-3.1-8b-instruct")).toBe(131072);
    const loaded = { ...F.LMSTUDIO_MODELS.data[1]!, state: "loaded", loaded_context_length: 8192 };
    expect(windowInModelList({ data: [loaded] }, "meta-llama-3.1-8b-instruct")).toBe(8192);
    expect(windowInModelList(F.LMSTUDIO_OPENAI_MODELS, "meta-llama-3.1-8b-instruct")).toBeUndefined();
  });
  it("llama.cpp: the slot's n_ctx from /props, never n_ctx_train from /v1/models", () => {
    expect(windowOfLlamaCppProps(F.LLAMACPP_PROPS)).toBe(1024);
    expect(windowInModelList(F.LLAMACPP_OPENAI_MODELS, F.LLAMACPP_OPENAI_MODELS.data[0]!.id)).toBeUndefined();
  });
  it("Ollama: the loaded model's context from /api/ps, else num_ctx, else the trained length capped at 4096", () => {
    expect(windowOfOllamaPs(F.OLLAMA_PS, "mistral")).toBe(32768);
    expect(windowOfOllamaPs(F.OLLAMA_PS, "llama3.2")).toBeUndefined();
    expect(windowOfOllamaShow(F.OLLAMA_SHOW_NUM_CTX)).toBe(4096);
    // The trained 8192 is not what Ollama loads: without num_ctx it runs 4096 and cuts the rest silently.
    expect(windowOfOllamaShow(F.OLLAMA_SHOW)).toBe(4096);
    expect(windowOfOllamaShow({ ...F.OLLAMA_SHOW, model_info: { "general.architecture": "llama", "llama.context_length": 2048 } })).toBe(2048);
  });
  it("nonsense is not believed", () => {
    expect(windowInModelList({ data: [{ id: "m", max_model_len: -1 }] }, "m")).toBeUndefined();
    expect(windowInModelList({ data: [{ id: "m", context_length: "lots" }] }, "m")).toBeUndefined();
    expect(windowOfLlamaCppProps({ default_generation_settings: { n_ctx: 1e12 } })).toBeUndefined();
    expect(windowOfOllamaShow("<html>")).toBeUndefined();
  });
  it("discovery lists Together AI's bare array too, with the windows it states", async () => {
    const s = await startTestModelServer();
    try {
      s.modelList = F.TOGETHER_MODELS;
      const listed = await listEndpointModels("endpoint", s.url, "k", 2000);
      expect(listed?.models).toEqual(["meta-llama/Llama-3.3-70B-Instruct-Turbo"]);
      expect(listed?.windows).toEqual({ "meta-llama/Llama-3.3-70B-Instruct-Turbo": 131072 });
    } finally {
      await s.close();
    }
  });
});

describe("probing the model's server", () => {
  let s: TestModelServer;
  beforeAll(async () => {
    s = await startTestModelServer();
  });
  afterAll(() => s.close());
  const reset = () => {
    s.modelList = undefined;
    s.routes = {};
    s.probes.length = 0;
    s.modelListAuth.length = 0;
  };

  it("vLLM: the model list answers; nothing else is asked", async () => {
    reset();
    s.modelList = F.VLLM_MODELS;
    expect(await probeContextWindow({ baseUrl: s.url, model: "Qwen/Qwen2.5-Coder-7B-Instruct", apiKey: "sk-probe-1" })).toBe(32768);
    expect(s.modelListAuth).toEqual(["Bearer sk-probe-1"]);
    expect(s.probes).toEqual([]);
  });

  it("Ollama: /api/ps for a loaded model; /api/show (POST with the model) otherwise", async () => {
    reset();
    s.modelList = F.OLLAMA_OPENAI_MODELS;
    s.routes = { "GET /api/ps": { body: F.OLLAMA_PS }, "POST /api/show": { body: F.OLLAMA_SHOW_NUM_CTX } };
    expect(await probeContextWindow({ baseUrl: s.url, model: "mistral:latest" })).toBe(32768);
    expect(await probeContextWindow({ baseUrl: s.url, model: "llama3.2" })).toBe(4096);
    expect(s.probes.find((p) => p.route === "POST /api/show")?.body).toEqual({ model: "llama3.2" });
  });

  it("llama.cpp: /props", async () => {
    reset();
    s.modelList = F.LLAMACPP_OPENAI_MODELS;
    s.routes = { "GET /props": { body: F.LLAMACPP_PROPS } };
    expect(await probeContextWindow({ baseUrl: s.url, model: F.LLAMACPP_OPENAI_MODELS.data[0]!.id })).toBe(1024);
  });

  it("LM Studio: /api/v0/models, with the key (same origin)", async () => {
    reset();
    s.modelList = F.LMSTUDIO_OPENAI_MODELS;
    s.routes = { "GET /api/v0/models": { body: F.LMSTUDIO_MODELS } };
    expect(await probeContextWindow({ baseUrl: s.url, model: "meta-llama-3.1-8b-instruct", apiKey: "lm-token-9" })).toBe(131072);
    expect(s.probes.find((p) => p.route === "GET /api/v0/models")?.auth).toBe("Bearer lm-token-9");
  });

  it("a server that says nothing: undefined, and modelWindow falls back to the documented default", async () => {
    reset();
    expect(await probeContextWindow({ baseUrl: s.url, model: "test-model" })).toBeUndefined();
    expect(await modelWindow({ baseUrl: `${s.url}/`, model: "silent-model" })).toEqual({ tokens: UNKNOWN_MODEL_WINDOW, source: "default" });
    expect(await modelWindow({ baseUrl: s.url, model: "silent-model", contextWindow: 9000 })).toEqual({ tokens: 9000, source: "configured" });
  });

  it("a server that never answers costs at most the deadline", async () => {
    reset();
    s.modelList = F.OLLAMA_OPENAI_MODELS;
    s.routes = { "GET /api/ps": { hang: true }, "POST /api/show": { hang: true }, "GET /props": { hang: true }, "GET /api/v0/models": { hang: true } };
    const started = Date.now();
    expect(await probeContextWindow({ baseUrl: s.url, model: "llama3.2" }, 400)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("a redirect to another origin is not followed: the key stays with the model's origin", async () => {
    reset();
    const other = await startTestModelServer();
    try {
      other.modelList = F.VLLM_MODELS;
      // A model endpoint that redirects every request to another origin (the test server itself never redirects).
      const redirecting = createServer((req, res) => {
        res.writeHead(302, { location: `${other.url}${req.url?.replace(/^\/v1/, "")}` });
        res.end();
      });
      await new Promise<void>((r) => redirecting.listen(0, "127.0.0.1", () => r()));
      const port = (redirecting.address() as { port: number }).port;
      try {
        expect(await probeContextWindow({ baseUrl: `http://127.0.0.1:${port}/v1`, model: "Qwen/Qwen2.5-Coder-7B-Instruct", apiKey: "sk-secret-7" })).toBeUndefined();
        expect(other.modelListAuth).toEqual([]);
        expect(other.probes.map((p) => p.auth).filter(Boolean)).toEqual([]);
      } finally {
        redirecting.close();
      }
    } finally {
      await other.close();
    }
  });

  it("an overflow error's stated window is remembered for the process", async () => {
    reset();
    const target = { baseUrl: s.url, model: "learns-from-errors" };
    expect(noteWindowFromError(target, F.VLLM_OVERFLOW_BODY.message)).toBe(4096);
    expect(await modelWindow(target)).toEqual({ tokens: 4096, source: "learned" });
    expect(noteWindowFromError(target, "request (4476 tokens) exceeds the available context size (2048 tokens)")).toBe(2048);
    expect(noteWindowFromError(target, "prompt is too long")).toBeUndefined();
  });
});
