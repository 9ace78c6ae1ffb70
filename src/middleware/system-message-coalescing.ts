// SystemMessageCoalescing — WHY wrapModelCall: what matters is the exact request the model gets, after every
// middleware has had its say; the state is not touched (a SystemMessage that some hook persisted stays where it
// is in the history, it is only moved in what is sent). Many chat templates (llama.cpp, vLLM, Anthropic's API)
// reject a system message that is not first, or more than one of them. So exactly ONE system message reaches the
// model, first: the agent's own system message, then every SystemMessage found in `request.messages`, in order.
//
// WHY the base prompt stays byte-identical: providers cache the prompt prefix. The agent's system message keeps its
// content as is (createAgent turns a string `systemPrompt` into one text block; those blocks, and any cache markers
// on them, are kept untouched) and injected texts are APPENDED as further text blocks ("\n\n" + text), so the
// rendered system text starts with the base prompt byte for byte on every call.
//
// WHY `systemMessage` (not `systemPrompt`) in the request we pass on: langchain rebuilds a changed `systemPrompt`
// string into a new content-block message, and refuses a request that changes both; a new `systemMessage` is used
// as given.
// WHY its position: LAST among the middlewares whose wrapModelCall may add messages (i.e. innermost), so it sees
// what every outer wrapper injected; a wrapper listed after it runs inside it and is not coalesced.
import { type BaseMessage, SystemMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";

type Block = Exclude<SystemMessage["content"], string>[number];

function blocksOf(content: SystemMessage["content"]): Block[] {
  return typeof content === "string" ? (content === "" ? [] : [{ type: "text", text: content } as Block]) : [...content];
}

/**
 * One system message from the base (may be undefined or empty) and the extra ones, in order. The base content is
 * kept as is (a string base stays a string when every extra is plain text); each extra is appended after a blank
 * line. Returns undefined when there is no system text at all.
 */
export function coalesceSystemMessages(base: SystemMessage | undefined, extras: readonly BaseMessage[]): SystemMessage | undefined {
  const baseContent = base?.content ?? "";
  const baseEmpty = typeof baseContent === "string" ? baseContent === "" : baseContent.length === 0;
  const parts = extras.filter((m) => (typeof m.content === "string" ? m.content !== "" : m.content.length > 0));
  if (parts.length === 0) return baseEmpty ? undefined : base;

  const allStrings = typeof baseContent === "string" && parts.every((m) => typeof m.content === "string");
  if (allStrings) {
    const texts = parts.map((m) => m.content as string);
    const text = baseEmpty ? texts.join("\n\n") : [baseContent as string, ...texts].join("\n\n");
    return new SystemMessage({ ...(base ? fieldsOf(base) : {}), content: text });
  }

  const blocks: Block[] = blocksOf(baseContent);
  for (const m of parts) {
    const extra = blocksOf(m.content as SystemMessage["content"]);
    if (blocks.length > 0) {
      // The separator goes into the extra's first text block when it starts with one, else as its own block.
      const first = extra[0] as { type?: unknown; text?: unknown } | undefined;
      if (first && first.type === "text" && typeof first.text === "string") extra[0] = { ...first, text: `\n\n${first.text}` } as Block;
      else blocks.push({ type: "text", text: "\n\n" } as Block);
    }
    blocks.push(...extra);
  }
  return new SystemMessage({ ...(base ? fieldsOf(base) : {}), content: blocks });
}

function fieldsOf(m: SystemMessage) {
  return { id: m.id, name: m.name, additional_kwargs: m.additional_kwargs, response_metadata: m.response_metadata };
}

export function systemMessageCoalescingMiddleware() {
  return createMiddleware({
    name: "SystemMessageCoalescing",
    wrapModelCall: (request, handler) => {
      const extras = request.messages.filter((m) => SystemMessage.isInstance(m));
      if (extras.length === 0) return handler(request);
      const rest = request.messages.filter((m) => !SystemMessage.isInstance(m));
      const merged = coalesceSystemMessages(request.systemMessage, extras);
      // Only `systemMessage` changes (langchain rejects a request changing both it and `systemPrompt`).
      return handler({ ...request, messages: rest, ...(merged ? { systemMessage: merged } : {}) });
    },
  });
}
