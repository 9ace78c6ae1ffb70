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
//   - `content` as an array of blocks (Mistral's thinking models) becomes text, its thinking blocks reasoning;
//     LangChain would drop the whole chunk ("non-string content").
//   - `finish_reason: ""` (Fireworks, on every unfinished chunk) becomes null.
// It also records what completeness needs: whether a finish_reason arrived and whether any choice did.

type Json = Record<string, any>;

interface Slot {
  id?: string;
  name?: string;
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
      if (choice.finish_reason === "") choice.finish_reason = null;
      if (choice.finish_reason != null) this.sawFinish = true;
      const delta: Json = choice.delta && typeof choice.delta === "object" ? choice.delta : (choice.delta = {});
      delta.role = "assistant";
      flattenContent(delta);
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
      if (choice.finish_reason === "") choice.finish_reason = null;
      if (choice.finish_reason != null) this.sawFinish = true;
      const message: Json = choice.message && typeof choice.message === "object" ? choice.message : (choice.message = {});
      message.role = "assistant";
      flattenContent(message);
      renameReasoning(message);
      // As in the stream: arguments sent as an object become the JSON string the SDK parses; `type` is implied.
      if (Array.isArray(message.tool_calls)) {
        message.tool_calls = message.tool_calls.map((tc: Json) => {
          const fn: Json = tc?.function && typeof tc.function === "object" ? tc.function : {};
          const args = typeof fn.arguments === "string" ? fn.arguments : fn.arguments != null ? JSON.stringify(fn.arguments) : "";
          return { ...tc, type: "function", function: { ...fn, arguments: args } };
        });
      }
    }
    return data;
  }

  /** Which of our slots a provider's `index` currently points at. */
  private byProviderIndex = new Map<number, number>();

  private fragment(tc: Json): Json {
    const id = typeof tc?.id === "string" && tc.id !== "" ? tc.id : undefined;
    const pIndex = typeof tc?.index === "number" ? tc.index : undefined;
    const atIndex = pIndex === undefined ? undefined : this.byProviderIndex.get(pIndex);
    const fn: Json = tc?.function && typeof tc.function === "object" ? tc.function : {};
    let index: number;
    if (id !== undefined) {
      const known = this.slots.findIndex((s) => s.id === id);
      // A known id continues its call — unless this is a new call header (a name, at another index) reusing the id:
      // a hostile or buggy model's duplicate, kept apart so the check can refuse it instead of gluing arguments.
      const duplicate = known >= 0 && typeof fn.name === "string" && fn.name !== "" && pIndex !== undefined && atIndex !== known;
      // A new id is a new call — even when the provider reuses `index` 0 for every call — unless the slot at its
      // index is still waiting for its id.
      index = known >= 0 && !duplicate ? known : atIndex !== undefined && this.slots[atIndex]!.id === undefined ? atIndex : this.slots.length;
    } else if (atIndex !== undefined) index = atIndex;
    else if (pIndex === undefined && this.slots.length > 0)
      index = this.slots.length - 1; // indexless continuation
    else index = this.slots.length;
    if (pIndex !== undefined) this.byProviderIndex.set(pIndex, index);
    const slot = (this.slots[index] ??= { announced: false });
    if (id !== undefined && slot.id === undefined) slot.id = id;
    const args = typeof fn.arguments === "string" ? fn.arguments : fn.arguments != null ? JSON.stringify(fn.arguments) : "";
    if (!slot.announced && (id !== undefined || typeof fn.name === "string")) {
      slot.announced = true;
      slot.name = fn.name ?? "";
      return { index, ...(id !== undefined && { id }), type: "function", function: { name: slot.name, arguments: args } };
    }
    // A name on a later fragment: a repeat of the whole name changes nothing; a continuation (a name split across
    // fragments, seen with Fireworks) is joined here and sent whole, because LangChain keeps the LAST name it sees.
    if (typeof fn.name === "string" && fn.name !== "" && fn.name !== slot.name) {
      slot.name = `${slot.name ?? ""}${fn.name}`;
      return { index, function: { name: slot.name, arguments: args } };
    }
    return { index, function: { arguments: args } };
  }
}

function moveGroqUsage(data: Json): void {
  if (data.usage == null && data.x_groq?.usage) data.usage = data.x_groq.usage;
}

function blockText(b: unknown): string {
  if (typeof b === "string") return b;
  if (!b || typeof b !== "object") return "";
  const o = b as Json;
  if (typeof o.text === "string") return o.text;
  if (Array.isArray(o.thinking)) return o.thinking.map(blockText).join("");
  return typeof o.thinking === "string" ? o.thinking : "";
}

function flattenContent(m: Json): void {
  if (!Array.isArray(m.content)) return;
  const blocks = m.content as unknown[];
  const isThinking = (b: unknown) => !!b && typeof b === "object" && ((b as Json).type === "thinking" || (b as Json).type === "reasoning");
  const thinking = blocks.filter(isThinking).map(blockText).join("");
  m.content = blocks
    .filter((b) => !isThinking(b))
    .map(blockText)
    .join("");
  if (thinking) m.reasoning_content = `${typeof m.reasoning_content === "string" ? m.reasoning_content : ""}${thinking}`;
}

function renameReasoning(m: Json): void {
  if (m.reasoning_content == null && typeof m.reasoning === "string") m.reasoning_content = m.reasoning;
  delete m.reasoning;
}
