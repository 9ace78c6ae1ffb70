// ls — list a directory two levels deep (virtual paths; directories end in "/"; symlinks are shown, never followed).
import { tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { resolveSandboxPath, toVirtualPath, hiddenFromTools } from "../sandbox/paths.js";
import { type FileToolOptions, type RuntimeLike, getMounts, walk } from "./fs-common.js";

export const LS_MAX_ENTRIES = 500;

export function createLsTool(options: FileToolOptions = {}) {
  return tool(
    async (input, runtime: ToolRuntime) => {
      const mounts = getMounts(runtime as RuntimeLike, options);
      const dir = await resolveSandboxPath(input.path, mounts, { mustExist: true, kind: "dir" });
      const lines: string[] = [];
      let truncated = false;
      for await (const e of walk(dir.hostPath, { maxDepth: 2, hide: hiddenFromTools(mounts) })) {
        if (lines.length >= LS_MAX_ENTRIES) {
          truncated = true;
          break;
        }
        const v = toVirtualPath(e.hostPath, mounts);
        lines.push(e.kind === "dir" ? `${v}/` : e.kind === "symlink" ? `${v} (symlink)` : e.kind === "other" ? `${v} (special file)` : v);
      }
      if (lines.length === 0) return `${dir.virtualPath} is empty.`;
      if (truncated) lines.push(`[Listing stopped at ${LS_MAX_ENTRIES} entries; ls a subdirectory or use glob to see more.]`);
      return lines.join("\n");
    },
    {
      name: "ls",
      description:
        "List the contents of a directory two levels deep. Paths are relative to the workspace or under /mnt/user-data/{workspace,uploads,outputs}. Directories end with '/'. Use it to get your bearings in a directory; use glob to find files by name across the tree.",
      schema: z.object({
        description: z.string().optional().describe("Why you are listing this directory (say it first)."),
        path: z.string().describe("The directory to list, e.g. /mnt/user-data/workspace or src."),
      }),
    },
  );
}

export const lsTool = createLsTool();
