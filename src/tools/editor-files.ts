// The editor's files, when `deerflow acp` serves an editor that offers them (ACP's fs/read_text_file and
// fs/write_text_file): read_file and the edits' "current text" come from the editor's buffers, unsaved changes
// included, and edits are written through the editor (its buffer, undo and save). Set per turn in an async context,
// as the run's own context is, so no tool takes a new argument. Only a text file inside the workspace goes there,
// and only after the workspace rules passed (the path resolved, confined, not git's code): uploads, outputs and
// skills stay deerflow's, and a path outside the workspace never reaches the editor.
import { AsyncLocalStorage } from "node:async_hooks";
import { lstatSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isInside } from "../sandbox/paths.js";
import type { ThreadPaths } from "../sandbox/provider.js";
import { realOrSelf } from "../sandbox/real-path.js";
import { whileSandboxIdle } from "../sandbox/run-shell.js";
import { type SafeWriteResult, refuseGitCodeWrite } from "../sandbox/safe-fs.js";
import { describeBinary } from "./fs-common.js";

export interface EditorFiles {
  /** The editor's text of a file (absolute real path). */
  read?: (path: string) => Promise<string>;
  /** The editor writes the file (absolute real path). */
  write?: (path: string, content: string) => Promise<void>;
  /** A line for the person (the editor's agent log) when the editor failed and the disk was used. */
  note: (line: string) => void;
}

const current = new AsyncLocalStorage<EditorFiles>();

/** Runs `work` (a turn) with the editor's files, when there are any. */
export function withEditorFiles<T>(files: EditorFiles | undefined, work: () => Promise<T>): Promise<T> {
  return files ? current.run(files, work) : work();
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err)).split("\n")[0]!.slice(0, 200);

/** A file's real path when it is inside the real workspace (its folder's links followed for a file not there yet). */
function workspaceReal(hostPath: string, mounts: ThreadPaths): string | undefined {
  const resolved = realOrSelf(hostPath);
  const real = resolved === hostPath ? join(realOrSelf(dirname(hostPath)), basename(hostPath)) : resolved;
  return isInside(real, realOrSelf(mounts.workspace_path)) ? real : undefined;
}

/**
 * A file's current bytes: the editor's text for a workspace text file when it offers it (`disk`, read and checked
 * by the caller, otherwise). An editor that fails is noted, and the disk's bytes are used.
 */
export async function currentBytes(realPath: string, mounts: ThreadPaths, disk: Buffer): Promise<Buffer> {
  const files = current.getStore();
  const read = files?.read;
  if (!read || describeBinary(disk)) return disk;
  try {
    // The check and the editor's read with no sandboxed process running (run-shell.ts): else the disk's bytes.
    const got = await whileSandboxIdle("read", async () => (workspaceReal(realPath, mounts) ? Buffer.from(await read(realPath), "utf8") : disk));
    return got?.value ?? disk;
  } catch (err) {
    files.note(`the editor did not give its text of ${realPath} (${reason(err)}): read from the disk.`);
    return disk;
  }
}

/**
 * Writes a workspace text file through the editor when it offers it, else runs `disk` (the race-free write). A file
 * with other hard links, or bytes that are not UTF-8, is written on the disk (replaced, never written through: the
 * other names keep their text). An editor that fails fails the call with its one line: the edit was not made.
 */
export async function writeThrough(hostPath: string, mounts: ThreadPaths, data: Buffer | string, disk: () => Promise<SafeWriteResult>): Promise<SafeWriteResult> {
  const write = current.getStore()?.write;
  if (!write) return disk();
  // The check and the editor's write with no sandboxed process running (run-shell.ts): else the race-free disk write.
  const through = await whileSandboxIdle("write", () => editorWrite(write, hostPath, mounts, data));
  return (await through?.value) ?? disk();
}

/** The editor's write of a workspace text file, or undefined when the disk must be used. */
async function editorWrite(write: NonNullable<EditorFiles["write"]>, hostPath: string, mounts: ThreadPaths, data: Buffer | string): Promise<SafeWriteResult | undefined> {
  const real = workspaceReal(hostPath, mounts);
  if (!real) return undefined;
  // git's own files and code stay refused whoever writes (the callers' plans checked it; the real path is checked too).
  refuseGitCodeWrite(real, mounts);
  const stat = lstatSync(real, { throwIfNoEntry: false });
  if (stat && (!stat.isFile() || stat.nlink > 1)) return undefined;
  const text = typeof data === "string" ? data : data.toString("utf8");
  // Bytes that are not UTF-8 (a Latin-1 file str_replace kept exactly) would not survive the editor's text.
  if (typeof data !== "string" && !Buffer.from(text, "utf8").equals(data)) return undefined;
  try {
    await write(real, text);
  } catch (err) {
    throw new Error(`The editor did not write ${real}: ${reason(err)}. The file is unchanged.`);
  }
  return { bytesWritten: Buffer.byteLength(text, "utf8"), created: !stat, realPath: real };
}
