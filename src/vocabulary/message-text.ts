// The text of a message: string content as is, content blocks joined by their text parts (images, tool-use blocks
// and other non-text blocks contribute nothing, or a `[type]` placeholder when asked). One definition for every
// consumer.
import type { BaseMessage } from "@langchain/core/messages";

export interface ContentTextOptions {
  /** Show each non-text block as `[its type]` (e.g. `[image_url]`), so a reader knows something was there. */
  placeholders?: boolean;
}

/** The text of a message's `content` (a string, or an array of content blocks). */
export function contentText(content: unknown, options: ContentTextOptions = {}): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b) => {
      if (typeof b === "string") return b;
      if (!b || typeof b !== "object") return "";
      const type = (b as { type?: unknown }).type;
      if (type === "text") {
        const t = (b as { text?: unknown }).text;
        return typeof t === "string" ? t : "";
      }
      return options.placeholders ? `[${String(type ?? "block")}]` : "";
    })
    .join("");
}

export function messageText(m: BaseMessage | undefined): string {
  return contentText(m?.content);
}
