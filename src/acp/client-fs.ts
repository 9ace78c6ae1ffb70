// The editor's file system when it offers one (initialize's clientCapabilities.fs): read_file and the edits read the
// editor's buffers through fs/read_text_file (unsaved changes included) and write through fs/write_text_file, for
// text files inside the workspace only, after the workspace rules (tools/editor-files.ts). A request the editor does
// not answer in time is given up: a read falls back to the disk with a line on stderr, a write fails its call.
import type { AgentContext, ClientCapabilities } from "@agentclientprotocol/sdk";
import type { EditorFiles } from "../tools/editor-files.js";

/** How long the editor has to answer one file request. */
export const EDITOR_FILE_TIMEOUT_MS = 30_000;

export function clientFilesOf(caps: ClientCapabilities | undefined, client: AgentContext, sessionId: string, turn: AbortSignal, log: (line: string) => void): EditorFiles | undefined {
  const fs = caps?.fs;
  if (!fs?.readTextFile && !fs?.writeTextFile) return undefined;
  const signal = () => AbortSignal.any([turn, AbortSignal.timeout(EDITOR_FILE_TIMEOUT_MS)]);
  return {
    read: fs.readTextFile ? async (path) => (await client.request("fs/read_text_file", { sessionId, path }, { cancellationSignal: signal() })).content : undefined,
    write: fs.writeTextFile
      ? async (path, content) => {
          await client.request("fs/write_text_file", { sessionId, path, content }, { cancellationSignal: signal() });
        }
      : undefined,
    note: log,
  };
}
