// A session/prompt's content blocks as deerflow's text prompt. A resource link names a file the user pointed at (the
// agent reads it with its tools, under the workspace rules); an embedded resource is the editor's text of it, given
// as quoted material, never as instructions; an image is the uploaded file it was saved as (prompt-images.ts). Audio
// was not offered in initialize.
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import { fileURLToPath } from "node:url";

function pathOfUri(uri: string): string {
  try {
    return uri.startsWith("file:") ? fileURLToPath(uri) : uri;
  } catch {
    return uri;
  }
}

function blockText(block: ContentBlock, images: ReadonlyMap<ContentBlock, string>): string {
  switch (block.type) {
    case "image": {
      const path = images.get(block);
      if (path) return `[image: ${path} (from the editor); look at it with view_image]`;
      break;
    }
    case "text":
      return block.text;
    case "resource_link":
      return `[file: ${pathOfUri(block.uri)}]`;
    case "resource": {
      const r = block.resource;
      if (!("text" in r)) return `[binary resource ${pathOfUri(r.uri)} left out]`;
      // A fence longer than any backtick run in the text, so the file's own fences cannot close it early.
      const fence = "`".repeat(Math.max(3, ...[...r.text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
      return `Contents of ${pathOfUri(r.uri)} (from the editor):\n${fence}\n${r.text}\n${fence}`;
    }
  }
  throw RequestError.invalidParams(undefined, `deerflow accepts text, resource links and embedded text resources in a prompt, not ${block.type}.`);
}

/** `images`: the image blocks' saved paths (an image not among them is refused). */
export function promptTextOf(blocks: readonly ContentBlock[], images: ReadonlyMap<ContentBlock, string> = new Map()): string {
  const text = blocks
    .map((b) => blockText(b, images))
    .join("\n\n")
    .trim();
  if (!text) throw RequestError.invalidParams(undefined, "The prompt is empty: send at least one text block.");
  return text;
}

/** The user's own words of a prompt (its text blocks): only they attach `@path` files, never an embedded file's text
 *  or a resource's address (a README's `@~/.someapp/token` was uploaded: the thirteenth pass's A1). */
export function attachTextOf(blocks: readonly ContentBlock[]): string {
  return blocks
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .join("\n\n");
}
