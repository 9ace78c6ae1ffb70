// Rewrites what an OpenAI-compatible provider sends into the canonical OpenAI shape that @langchain/openai
// converts correctly. WHY here (below the SDK): every provider difference is a difference of the wire format, and
// fixing it once on the wire serves every LangChain code path (invoke, stream, stream events) alike.
//   - `id`: replaced by one id WE mint per request. Providers reuse ids (Ollama: `chatcmpl-<0..998>`), and
//     LangChain turns the response id into the message id, which the messages reducer replaces by.
//   - `delta.role`: always "assistant" (a stream without it becomes a ChatMessageChunk that createAgent rejects).
//   - tool-call fragments: given a dense `index` (Gemini's OpenAI endpoint sends none); `id`/`name` only on a call's
//     first fragment (some servers repeat them, which LangChain would concatenate).
//   - `reasoning` (OpenRouter, newer vLLM) becomes `reasoning_content` (DeepSeek's name, the one LangChain keeps).
//   - usage inside `x_groq` (Groq) becomes top-level `usage`.
// It also records what completeness needs: whether a finish_reason arrived and whether any choice did.

type Json = Record<string, any>;

interface Slot {
  id?: string;
  announced: boolean;
}

export class ChunkNormalizer {
  /** A finish_reason was seen (the answer is complete even if `[DONE]` is missing). */
  sawFinish = false;
  /** At least one chunk carried a choice. */
  sawChoice = false;
  private slots: Slot[] = [];

  constructor(private readonly messageId: string) {}

  /** One streamed chunk (already JSON-parsed), normalised in place and returned. */
  chunk(data: Json): Json {
    data.id = this.messageId;
    moveGroqUsage(data);
    if (!Array.isArray(data.choices)) data.choices = [];
    for (const choice of data.choices) {
      if (!choice || typeof choice !== "object") continue;
      this.sawChoice = true;
      if (choice.finish_reason != null) this.sawFinish = true;
      const delta: Json = choice.delta && typeof choice.delta === "object" ? choice.delta : (choice.delta = {});
      delta.role = "assistant";
      renameReasoning(delta);
      if (Array.isArray(delta.tool_calls)) delta.tool_calls = delta.tool_calls.map((tc: Json) => this.fragment(tc));
    }
    return data;
  }

  /** A whole non-streaming response, normalised in place and returned. */
  response(data: Json): Json {
    data.id = this.messageId;
    moveGroqUsage(data);
    for (const choice of Array.isArray(data.choices) ? data.choices : []) {
      if (!choice || typeof choice !== "object") continue;
      this.sawChoice = true;
      if (choice.finish_reason != null) this.sawFinish = true;
      const message: Json = choice.message && typeof choice.message === "object" ? choice.message : (choice.message = {});
      message.role = "assistant";
      renameReasoning(message);
    }
    return data;
  }

  private fragment(tc: Json): Json {
    const id = typeof tc?.id === "string" && tc.id !== "" ? tc.id : undefined;
    let index: number;
    const byId = id === undefined ? -1 : this.slots.findIndex((s) => s.id === id);
    if (byId >= 0) index = byId;
    else if (id !== undefined) {
      // A new id is a new call — even when the provider reuses `index` 0 for every call.
      const open = typeof tc.index === "number" ? this.slots[tc.index] : undefined;
      index = open && open.id === undefined && !open.announced ? tc.index : this.slots.length;
    } else if (typeof tc?.index === "number" && this.slots[tc.index]) index = tc.index;
    else if (this.slots.length > 0 && typeof tc?.index !== "number") index = this.slots.length - 1;
    else index = typeof tc?.index === "number" ? Math.max(tc.index, this.slots.length) : this.slots.length;
    const slot = (this.slots[index] ??= { announced: false });
    if (id !== undefined && slot.id === undefined) slot.id = id;
    const fn: Json = tc?.function && typeof tc.function === "object" ? tc.function : {};
    const args = typeof fn.arguments === "string" ? fn.arguments : fn.arguments != null ? JSON.stringify(fn.arguments) : "";
    if (!slot.announced && (id !== undefined || typeof fn.name === "string")) {
      slot.announced = true;
      return { index, ...(id !== undefined && { id }), type: "function", function: { name: fn.name ?? "", arguments: args } };
    }
    return { index, function: { arguments: args } };
  }
}

function moveGroqUsage(data: Json): void {
  if (data.usage == null && data.x_groq?.usage) data.usage = data.x_groq.usage;
}

function renameReasoning(m: Json): void {
  if (m.reasoning_content == null && typeof m.reasoning === "string") m.reasoning_content = m.reasoning;
  delete m.reasoning;
}
