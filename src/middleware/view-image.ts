// ViewImage — after Memory, before SubagentLimit (DeerFlow's order). It registers `view_image` (when the thread has
// a sandbox) and, in wrapModelCall, shows the images viewed in the LAST tool round (view_image, or images an MCP
// tool returned, recorded the same way) to the next model call only: the
// bytes are read from disk, checked against the sha256 recorded in `viewed_images`, and attached to the request as
// an image message that is never written to state (checkpoints keep metadata, not bytes). A file that changed since
// it was viewed is not shown; the model is told to view it again.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { StateSchema } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { THREAD_STATE_VALUES } from "../state/thread-state.js";
import type { ViewedImage } from "../state/types.js";
import { createViewImageTool } from "../tools/view-image.js";

const stateSchema = new StateSchema({ viewed_images: THREAD_STATE_VALUES.viewed_images, thread_data: THREAD_STATE_VALUES.thread_data });

/** Virtual paths of images viewed by the tool results after the last AI message. */
function lastRoundImages(messages: readonly unknown[]): string[] {
  const out: string[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (AIMessage.isInstance(m)) break;
    if (ToolMessage.isInstance(m) && m.status !== "error") {
      // view_image names one image; a tool that returned images (an MCP tool) names them all.
      const a = m.artifact as { image_path?: unknown; image_paths?: unknown } | undefined;
      const named = m.name === "view_image" ? [a?.image_path] : Array.isArray(a?.image_paths) ? a.image_paths : [];
      out.unshift(...named.filter((p): p is string => typeof p === "string"));
    }
  }
  return out;
}

export function viewImageMiddleware(options: { withTool?: boolean } = {}) {
  return createMiddleware({
    name: "ViewImage",
    stateSchema,
    tools: options.withTool === false ? [] : [createViewImageTool()],
    wrapModelCall: async (request, handler) => {
      const paths = lastRoundImages(request.messages);
      if (paths.length === 0) return handler(request);
      const viewed = ((request.state as { viewed_images?: Record<string, ViewedImage> | null }).viewed_images ?? {}) as Record<string, ViewedImage>;
      const blocks: ({ type: "text"; text: string } | { type: "image_url"; image_url: { url: string } })[] = [];
      for (const p of paths) {
        const meta = viewed[p];
        if (!meta) continue;
        const data = await readFile(meta.actual_path).catch(() => undefined);
        if (!data || createHash("sha256").update(data).digest("hex") !== meta.sha256) {
          blocks.push({ type: "text", text: `${p} changed or disappeared after you viewed it; call view_image again to see the current file.` });
          continue;
        }
        blocks.push({ type: "text", text: `Image ${p}:` });
        blocks.push({ type: "image_url", image_url: { url: `data:${meta.mime_type};base64,${data.toString("base64")}` } });
      }
      if (blocks.length === 0) return handler(request);
      return handler({ ...request, messages: [...request.messages, new HumanMessage({ content: blocks })] });
    },
  });
}
