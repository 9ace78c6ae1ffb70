// What an MCP tool call returns, as the model gets it. The adapter hands over its content blocks (text, image_url,
// audio, file: embedded resources as text or base64, resource links as url); here they become one text result.
// Images and binary resources are written under the thread's outputs/mcp/ and named by their virtual path; images
// are also recorded in `viewed_images`, so the ViewImage middleware shows them to a model that accepts images on
// its next call (the vision path view_image uses; checkpoints never hold the bytes).
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { hostWriteFile } from "../sandbox/host-write.js";
import { VIRTUAL_ROOT } from "../sandbox/paths.js";
import type { ViewedImage } from "../state/types.js";
import { stripControl } from "../vocabulary/terminal-text.js";

export const MCP_OUTPUT_DIR = "mcp";
/** Text from a server beyond this is cut (ToolOutputBudget then keeps head and tail of what is left). */
const MAX_TEXT = 200_000;
const EXT: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp", "audio/wav": "wav", "audio/mpeg": "mp3" };

const VISION_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

type Block = { type?: unknown; text?: unknown; image_url?: { url?: unknown }; data?: unknown; mime_type?: unknown; source_type?: unknown; url?: unknown; metadata?: { uri?: unknown } };

export interface ConvertedResult {
  text: string;
  /** Virtual path → metadata of images saved from this result. */
  images: Record<string, ViewedImage>;
}

function safeFilePart(s: string): string {
  return s.replace(/[^A-Za-z0-9_.-]+/g, "_").slice(0, 80) || "x";
}

export async function convertMcpContent(content: unknown, where: { outputsPath?: string; toolName: string; callId: string }): Promise<ConvertedResult> {
  // A string, a list of blocks, or one block (the adapter's shape for a single text block with structured content).
  const blocks: Block[] =
    typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? (content as Block[]) : content && typeof content === "object" ? [content as Block] : [];
  const parts: string[] = [];
  const images: Record<string, ViewedImage> = {};
  let n = 0;
  const save = async (data: Buffer, mime: string, what: string): Promise<{ virtual: string; real: string } | string> => {
    if (!where.outputsPath) return `[${what} (${mime}, ${data.length} bytes) not kept: this run has no outputs directory]`;
    const dir = join(where.outputsPath, MCP_OUTPUT_DIR);
    const file = `${safeFilePart(where.toolName)}-${safeFilePart(where.callId)}-${++n}.${EXT[mime] ?? "bin"}`;
    // outputs/ is writable inside the sandbox: never through a link a command planted there.
    await hostWriteFile({ base: dirname(where.outputsPath), dir, name: file }, { data });
    return { virtual: `${VIRTUAL_ROOT}/outputs/${MCP_OUTPUT_DIR}/${file}`, real: join(dir, file) };
  };
  for (const b of blocks) {
    if (b.type === "text" && typeof b.text === "string") parts.push(b.text);
    else if (b.type === "image_url" && typeof b.image_url?.url === "string") {
      const m = /^data:([^;,]+);base64,(.*)$/s.exec(b.image_url.url);
      if (!m) {
        parts.push(`[image at ${b.image_url.url.slice(0, 200)}]`);
        continue;
      }
      const mime = m[1]!.toLowerCase();
      const data = Buffer.from(m[2]!, "base64");
      const saved = await save(data, mime, "image");
      if (typeof saved === "string") parts.push(saved);
      // Only what a model can take as an image goes down the vision path; the rest stays a file.
      else if (!VISION_TYPES.has(mime)) parts.push(`[image content (${mime}) saved to ${saved.virtual}; not an image type the model can see]`);
      else {
        const sha256 = createHash("sha256").update(data).digest("hex");
        images[saved.virtual] = { mime_type: mime, size: data.length, actual_path: saved.real, sha256 };
        parts.push(`[image ${saved.virtual} (${mime}, ${data.length} bytes)]`);
      }
    } else if ((b.type === "audio" || b.type === "file") && b.source_type === "base64" && typeof b.data === "string") {
      const mime = typeof b.mime_type === "string" ? b.mime_type : "application/octet-stream";
      const uri = typeof b.metadata?.uri === "string" ? ` ${b.metadata.uri}` : "";
      const saved = await save(Buffer.from(b.data, "base64"), mime, `${b.type}${uri}`);
      parts.push(typeof saved === "string" ? saved : `[${b.type === "audio" ? "audio" : "resource"}${uri} saved to ${saved.virtual} (${mime})]`);
    } else if (b.type === "file" && b.source_type === "text" && typeof b.text === "string") {
      const uri = typeof b.metadata?.uri === "string" ? b.metadata.uri : "resource";
      parts.push(`[resource ${uri}${typeof b.mime_type === "string" ? ` (${b.mime_type})` : ""}]\n${b.text}`);
    } else if (b.type === "file" && typeof b.url === "string") {
      parts.push(`[resource link ${b.url}${typeof b.mime_type === "string" ? ` (${b.mime_type})` : ""}]`);
    } else {
      parts.push(`[${String(b.type ?? "unknown")} content omitted]`);
    }
  }
  let text = stripControl(parts.join("\n"));
  if (text.length > MAX_TEXT) text = `${text.slice(0, MAX_TEXT)}\n[... ${text.length - MAX_TEXT} characters of the server's answer cut ...]`;
  return { text: text || "(the tool returned no content)", images };
}
