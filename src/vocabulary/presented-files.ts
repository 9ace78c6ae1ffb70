// Files the agent presented (present_files): the model names them by virtual paths under /mnt/user-data/outputs, the
// user needs where they are on this machine. One home for the mapping and for the line every front end prints, so
// the text output, the TUI and `threads show` name a presented file the same way.
import { shownText } from "./terminal-text.js";
import { VIRTUAL_ROOT } from "./workspace-path.js";

/** The thread's host directories, as the thread's state records them (`thread_data`). */
export interface PresentedMounts {
  workspace_path?: string | null;
  uploads_path?: string | null;
  outputs_path?: string | null;
}

/**
 * The host path of a presented virtual path. present_files keeps only paths it resolved (symlinks followed) inside
 * the outputs mount, so the mapping is lexical; a path of no known mount is returned as it is.
 */
export function hostPathOf(virtualPath: string, mounts: PresentedMounts): string {
  for (const name of ["workspace", "uploads", "outputs"] as const) {
    const base = mounts[`${name}_path`];
    const prefix = `${VIRTUAL_ROOT}/${name}`;
    if (!base) continue;
    if (virtualPath === prefix) return base;
    if (virtualPath.startsWith(`${prefix}/`)) return `${base.replace(/\/+$/, "")}/${virtualPath.slice(prefix.length + 1)}`;
  }
  return virtualPath;
}

/** The line that tells the user where presented files are (text mode's stderr, the TUI). */
export function presentedLine(files: readonly string[]): string {
  return `presented ${files.length === 1 ? "file" : `${files.length} files`}: ${files.map(shownText).join(", ")}`;
}
