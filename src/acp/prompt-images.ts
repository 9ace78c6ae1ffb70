// An image in a prompt (an editor's screenshot or pasted picture): saved in the thread's uploads folder under a
// name deerflow picks, and named in the prompt for the model to look at with view_image. Only a model marked
// "supportsVision" has view_image; for another the image is refused with what to do. The editor's bytes are data:
// their type is read from the bytes themselves (PNG, JPEG, GIF, WebP) and their size is bounded.
import { randomBytes } from "node:crypto";
import { type ContentBlock, type ImageContent, RequestError } from "@agentclientprotocol/sdk";
import type { ChatSession } from "../runtime/chat-session.js";
import { hostWriteFile } from "../sandbox/host-write.js";
import { sniffType } from "../tools/fs-common.js";
import { IMAGE_MAX_BYTES } from "../tools/view-image.js";
import { VIRTUAL_ROOT } from "../vocabulary/workspace-path.js";

const EXTENSIONS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp" };

function bytesOf(block: ImageContent): { data: Buffer; ext: string } {
  const data = Buffer.from(block.data, "base64");
  if (data.length > IMAGE_MAX_BYTES) throw RequestError.invalidParams(undefined, `The image is ${data.length} bytes; deerflow takes images up to ${IMAGE_MAX_BYTES / 1024 / 1024} MB.`);
  const ext = EXTENSIONS[sniffType(data)?.mime ?? ""];
  if (!ext) throw RequestError.invalidParams(undefined, "The image is not a PNG, JPEG, GIF or WebP picture: send one of those.");
  return { data, ext };
}

/** Each image block's path as the model sees it (after the image was saved in the thread's uploads). */
export async function savedImages(blocks: readonly ContentBlock[], chat: ChatSession): Promise<Map<ContentBlock, string>> {
  const images = blocks.filter((b): b is ContentBlock & ImageContent => b.type === "image");
  const saved = new Map<ContentBlock, string>();
  if (images.length === 0) return saved;
  if (!chat.model.supportsVision) {
    throw RequestError.invalidParams(undefined, `The model "${chat.model.name}" is not marked as seeing images: send text, or set "supportsVision": true for it in .deerflowrc's "models" if it does.`);
  }
  // Every image checked before any is saved: a refused prompt leaves nothing behind.
  const files = images.map((b) => ({ block: b, ...bytesOf(b) }));
  const { uploads_path } = await chat.ensureThread();
  for (const f of files) {
    const name = `editor-image-${randomBytes(4).toString("hex")}.${f.ext}`;
    // uploads/ is writable inside the sandbox: a folder swapped for a link must not carry this write out.
    await hostWriteFile({ base: chat.config.home, dir: uploads_path, name }, { data: f.data });
    saved.set(f.block, `${VIRTUAL_ROOT}/uploads/${name}`);
  }
  return saved;
}
