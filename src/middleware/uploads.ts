// Uploads — after ThreadData (it needs uploads_path), before Sandbox: in beforeAgent it lists the files the user
// attached for this run into `uploaded_files` (cleared when there are none), and wrapModelCall tells the model
// about them next to the user's message without rewriting the stored message.
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";

interface UploadedFile {
  filename: string;
  path: string;
  size: number;
}

async function listUploads(dir: string): Promise<UploadedFile[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const files: UploadedFile[] = [];
  for (const name of names.sort()) {
    const s = await stat(join(dir, name)).catch(() => undefined);
    if (s?.isFile()) files.push({ filename: name, path: `/mnt/user-data/uploads/${name}`, size: s.size });
  }
  return files;
}

export function uploadsMiddleware() {
  return createMiddleware({
    name: "Uploads",
    beforeAgent: async (state) => {
      const dir = (state as { thread_data?: { uploads_path?: string } | null }).thread_data?.uploads_path;
      const files = dir ? await listUploads(dir) : [];
      return { uploaded_files: files } as never;
    },
    wrapModelCall: (request, handler) => {
      const files = (request.state as { uploaded_files?: UploadedFile[] | null }).uploaded_files ?? [];
      if (files.length === 0) return handler(request);
      const listing = files.map((f) => `- ${f.path} (${f.size} bytes)`).join("\n");
      const note = new HumanMessage(`<uploaded_files>\nThe user attached these files:\n${listing}\n</uploaded_files>`);
      const messages = [...request.messages];
      let lastHuman = -1;
      messages.forEach((m, i) => {
        if (HumanMessage.isInstance(m)) lastHuman = i;
      });
      messages.splice(lastHuman + 1, 0, note);
      return handler({ ...request, messages });
    },
  });
}
