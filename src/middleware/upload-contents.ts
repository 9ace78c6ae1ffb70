// What the model is shown of a file the user attached with `@path` (or --upload): the contents themselves, as
// Claude Code and Gemini CLI send them, so the model need not spend a turn reading it. Bounded: a file up to
// INLINE_MAX_BYTES / INLINE_MAX_LINES goes in whole; a bigger one as its size, its first PREVIEW_LINES lines and a
// note to read the rest with read_file; a binary file only as what it is. Key-shaped strings are masked (the
// attachment check already refused secret files; a key pasted into a notes file is not the user's point), and the
// harness's own tags in the file (`</file>`, `<system-reminder>`…) are neutralised as in a typed message.
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { describeBinary } from "../tools/fs-common.js";
import { maskSecretShapes } from "../vocabulary/secret-shapes.js";
import { CONTROL_TAGS, createSanitizer } from "./input-sanitization.js";

export const INLINE_MAX_BYTES = 32 * 1024;
export const INLINE_MAX_LINES = 1000;
export const PREVIEW_LINES = 60;

const neutralise = createSanitizer([...CONTROL_TAGS, "file"]);

async function head(hostPath: string, bytes: number): Promise<Buffer> {
  const fh = await open(hostPath, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** The `<file>` block for one attachment (its path as the model sees it, its size in bytes). */
export async function uploadContents(hostPath: string, virtualPath: string, size: number): Promise<string> {
  let data: Buffer;
  try {
    data = await head(hostPath, INLINE_MAX_BYTES + 1);
  } catch {
    return `<file path="${virtualPath}" size="${size}">\n[Could not be read now; read it with read_file.]\n</file>`;
  }
  const binary = describeBinary(data);
  if (binary) return `<file path="${virtualPath}" size="${size}">\n[${binary}: not shown as text. Use view_image for an image, or tools that understand the format.]\n</file>`;
  // A cut in the middle of a UTF-8 character is dropped, not shown as �.
  const text = neutralise(maskSecretShapes(new TextDecoder("utf-8", { fatal: false }).decode(data).replace(/\uFFFD$/, "")));
  const lines = text.split("\n");
  if (size <= INLINE_MAX_BYTES && lines.length <= INLINE_MAX_LINES) return `<file path="${virtualPath}" size="${size}">\n${text}\n</file>`;
  const shown = lines.slice(0, PREVIEW_LINES).join("\n");
  return `<file path="${virtualPath}" size="${size}" shown="first ${PREVIEW_LINES} lines">\n${shown}\n[… the file is ${size} bytes, more than is sent whole (${INLINE_MAX_BYTES / 1024} KB or ${INLINE_MAX_LINES} lines): read the rest with read_file ${virtualPath} start_line=${PREVIEW_LINES + 1}.]\n</file>`;
}
