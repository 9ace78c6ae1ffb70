// view_image — register an image (png/jpeg/gif/webp) for the model to look at. Only metadata + sha256 go into
// state (`viewed_images`, keyed by virtual path); the bytes stay on disk at actual_path (the host path, never
// shown to the model).
import { extname } from "node:path";
import { ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { SandboxPathError, resolveSandboxPath } from "../sandbox/paths.js";
import { safeReadFile } from "../sandbox/safe-fs.js";
import type { ViewedImage } from "../state/types.js";
import { type FileToolOptions, type RuntimeLike, getMounts, sha256, sniffType, toolCallIdOf } from "./fs-common.js";

export const IMAGE_MAX_BYTES = 20 * 1024 * 1024;
const EXT_MIME: Record<string, string> = { ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp" };

/** Width × height from the image header, when it can be read cheaply. */
export function imageSize(data: Buffer, mime: string): { width: number; height: number } | undefined {
  try {
    if (mime === "image/png" && data.length >= 24) return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
    if (mime === "image/gif" && data.length >= 10) return { width: data.readUInt16LE(6), height: data.readUInt16LE(8) };
    if (mime === "image/webp" && data.length >= 30) {
      const kind = data.subarray(12, 16).toString("latin1");
      if (kind === "VP8X") return { width: 1 + data.readUIntLE(24, 3), height: 1 + data.readUIntLE(27, 3) };
      if (kind === "VP8L") {
        const b = data.readUInt32LE(21);
        return { width: 1 + (b & 0x3fff), height: 1 + ((b >> 14) & 0x3fff) };
      }
      if (kind === "VP8 ") return { width: data.readUInt16LE(26) & 0x3fff, height: data.readUInt16LE(28) & 0x3fff };
    }
    if (mime === "image/jpeg") {
      let i = 2;
      while (i + 9 < data.length) {
        if (data[i] !== 0xff) return undefined;
        const marker = data[i + 1]!;
        const len = data.readUInt16BE(i + 2);
        if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
          return { height: data.readUInt16BE(i + 5), width: data.readUInt16BE(i + 7) };
        }
        i += 2 + len;
      }
    }
  } catch {
    /* malformed header */
  }
  return undefined;
}

export function createViewImageTool(options: FileToolOptions = {}) {
  return tool(
    async (input, runtime: ToolRuntime) => {
      const rt = runtime as RuntimeLike;
      const mounts = getMounts(rt, options);
      const target = await resolveSandboxPath(input.image_path, mounts, { mustExist: true, kind: "file" });
      const v = target.virtualPath;
      const byExt = EXT_MIME[extname(target.hostPath).toLowerCase()];
      if (!byExt) throw new Error(`${v} is not a supported image: only .png, .jpg/.jpeg, .gif and .webp can be viewed.`);
      const { data, realPath } = await safeReadFile(target.hostPath, mounts, { maxBytes: IMAGE_MAX_BYTES + 1 });
      if (data.length > IMAGE_MAX_BYTES) throw new Error(`${v} is larger than ${IMAGE_MAX_BYTES} bytes; make a smaller copy first.`);
      const sniffed = sniffType(data);
      if (!sniffed || !Object.values(EXT_MIME).includes(sniffed.mime)) {
        throw new SandboxPathError(`${v} does not contain PNG, JPEG, GIF or WebP data (its name says ${byExt}); it cannot be viewed.`);
      }
      const digest = sha256(data);
      const meta: ViewedImage = { mime_type: sniffed.mime, size: data.length, actual_path: realPath, sha256: digest };
      const dims = imageSize(data, sniffed.mime);
      const content = `Image ${v}: ${sniffed.mime}, ${data.length} bytes` + (dims ? `, ${dims.width}x${dims.height}` : "") + `, sha256 ${digest}. It will be shown to you.`;
      return new Command({
        update: {
          viewed_images: { [v]: meta },
          // The artifact names the state key, so the ViewImage middleware knows which bytes to attach.
          messages: [new ToolMessage({ content, tool_call_id: toolCallIdOf(rt), name: "view_image", artifact: { image_path: v } })],
        },
      });
    },
    {
      name: "view_image",
      description: "Look at an image file (PNG, JPEG, GIF or WebP) in the workspace, uploads or outputs.",
      schema: z.object({
        description: z.string().optional().describe("Why you want to see this image (say it first)."),
        image_path: z.string().describe("The image, relative to the workspace or under /mnt/user-data/..."),
      }),
    },
  );
}

export const viewImageTool = createViewImageTool();
