// The file tools as one list (bash lives elsewhere). Mounts come from the graph state (`thread_data`), see
// fs-common.ts; pass `mounts` to bind the tools to fixed directories instead.
import type { FileToolOptions } from "./fs-common.js";
import { createGlobTool } from "./glob.js";
import { createGrepTool } from "./grep.js";
import { createLsTool } from "./ls.js";
import { createPresentFilesTool } from "./present-files.js";
import { createReadFileTool } from "./read-file.js";
import { createStrReplaceTool } from "./str-replace.js";
import { createViewImageTool } from "./view-image.js";
import { createWriteFileTool } from "./write-file.js";

export type { FileToolOptions } from "./fs-common.js";
export { resetReadRecords } from "./fs-common.js";

export function createFileTools(options: FileToolOptions = {}) {
  return [
    createLsTool(options),
    createGlobTool(options),
    createGrepTool(options),
    createReadFileTool(options),
    createWriteFileTool(options),
    createStrReplaceTool(options),
    createPresentFilesTool(options),
    createViewImageTool(options),
  ];
}

export const FILE_TOOL_NAMES = ["ls", "glob", "grep", "read_file", "write_file", "str_replace", "present_files", "view_image"] as const;
