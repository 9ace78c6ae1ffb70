// Uploads — after ThreadData (it needs uploads_path), before Sandbox: in beforeAgent it records the files the user
// attached for THIS run (names in `configurable.deerflow_uploads`, copied into uploads/ by the runtime) in
// `uploaded_files` (cleared when there are none), and wrapModelCall tells the model about them — with their
// contents, bounded (upload-contents.ts) — next to the user's message without rewriting the stored message: the
// contents go to every model call of this run and are not kept in the thread (a later run reads the file).
import { readRunConfigurable } from "../vocabulary/configurable.js";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { StateSchema } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { THREAD_STATE_VALUES } from "../state/thread-state.js";
import { uploadContents } from "./upload-contents.js";

interface UploadedFile {
  filename: string;
  path: string;
  size: number;
}

async function listUploads(dir: string, names: string[]): Promise<UploadedFile[]> {
  const files: UploadedFile[] = [];
  for (const name of names) {
    const s = await stat(join(dir, name)).catch(() => undefined);
    if (s?.isFile()) files.push({ filename: name, path: `/mnt/user-data/uploads/${name}`, size: s.size });
  }
  return files;
}

// langchain hands a middleware node only the fields its schema declares: these are the ones it reads and writes.
const stateSchema = new StateSchema({ thread_data: THREAD_STATE_VALUES.thread_data, uploaded_files: THREAD_STATE_VALUES.uploaded_files });

export function uploadsMiddleware() {
  return createMiddleware({
    name: "Uploads",
    stateSchema,
    beforeAgent: async (state, runtime) => {
      const dir = (state as { thread_data?: { uploads_path?: string } | null }).thread_data?.uploads_path;
      const names = readRunConfigurable(runtime.configurable).uploads;
      const files = dir && names ? await listUploads(dir, names) : [];
      return { uploaded_files: files } as never;
    },
    wrapModelCall: async (request, handler) => {
      const state = request.state as { uploaded_files?: UploadedFile[] | null; thread_data?: { uploads_path?: string } | null };
      const files = state.uploaded_files ?? [];
      const dir = state.thread_data?.uploads_path;
      if (files.length === 0 || !dir) return handler(request);
      const listing = files.map((f) => `- ${f.path} (${f.size} bytes)`).join("\n");
      const contents = await Promise.all(files.map((f) => uploadContents(join(dir, f.filename), f.path, f.size)));
      const note = new HumanMessage(`<uploaded_files>\nThe user attached these files:\n${listing}\n\n${contents.join("\n\n")}\n</uploaded_files>`);
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
