// Writing an export to a file (`threads export -o`, the chat's `/export file`). WHY it refuses an existing file
// unless forced: an export written over a file the user keeps (a report, yesterday's export) is gone for good, and
// saying `--force` costs one flag. WHY O_EXCL: the check and the create are one step, so a file (or a symbolic link
// planted to point elsewhere) that appears in between is refused too, never followed. Forced, the export is written
// beside the name and renamed over it: a link at the name is replaced, never written through (the model planted
// `export.md -> ../../.bashrc` in the workspace, and `--force` wrote the user's home file: the 23rd pass's A23-7).
import { randomBytes } from "node:crypto";
import { lstatSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { ResolvedConfig } from "../config/load.js";
import { UsageError } from "../errors.js";
import { plantedLinkProblem, writableFolders } from "../sandbox/planted-links.js";
import { notePastWorkspaces } from "../sandbox/sandbox-writable.js";
import { buildThreadExport } from "./thread-export.js";
import { type ExportFormat, formatOfFile, renderExport } from "./thread-export-format.js";

export function writeExportFile(path: string, text: string, opts: { force?: boolean; forceHint: string; dataDir: string; workspace?: string }): void {
  // A folder on the way that a sandboxed command could have swapped for a link (`out -> ~/.config/autostart`): the
  // export would land wherever it points (the twenty-fourth pass's A24-6; the debug log's A24-2 rule).
  notePastWorkspaces(opts.dataDir);
  const planted = plantedLinkProblem(dirname(path), writableFolders({ workspace: opts.workspace ?? process.cwd(), dataDir: opts.dataDir }));
  if (planted) throw new UsageError(`Cannot write ${path}: ${planted}.`, "Remove the link, or name a file in a real folder.");
  try {
    if (opts.force) replaceFile(path, text);
    else writeFileSync(path, text, { flag: "wx", mode: 0o600 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new UsageError(`${path} already exists: the export was not written.`, opts.forceHint);
    if (code === "ENOENT") throw new UsageError(`Cannot write ${path}: its folder does not exist.`, "Create the folder, or name a file in an existing one.");
    if (code === "EISDIR") throw new UsageError(`${path} is a folder: name a file to write the export to.`);
    if (code === "EACCES" || code === "EPERM") throw new UsageError(`Cannot write ${path}: permission denied.`);
    throw err;
  }
}

/** `text` in a fresh file beside `path`, renamed over whatever is at `path` (a file or a link, never a folder). */
function replaceFile(path: string, text: string): void {
  if (lstatSync(path, { throwIfNoEntry: false })?.isDirectory()) throw Object.assign(new Error(`${path} is a folder`), { code: "EISDIR" });
  const tmp = join(dirname(path), `.${basename(path)}.deerflow-${randomBytes(4).toString("hex")}`);
  writeFileSync(tmp, text, { flag: "wx", mode: 0o600 });
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * The chat's `/export [file]`: thread `threadId` to `file` (relative to `cwd`; default deerflow-<id>.md there), its
 * format by the file's extension, never over an existing file. Returns where it went.
 */
export async function exportThreadToFile(config: ResolvedConfig, threadId: string, cwd: string, file?: string): Promise<{ path: string; format: ExportFormat }> {
  const path = resolve(cwd, file || `deerflow-${threadId}.md`);
  const format = formatOfFile(path);
  writeExportFile(path, renderExport(await buildThreadExport(config, threadId), format), { forceHint: "Name another file: /export <file>.", dataDir: config.home, workspace: cwd });
  return { path, format };
}
