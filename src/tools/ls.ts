// ls — list a directory two levels deep (virtual paths; directories end in "/"; symlinks are shown, never followed).
// What the repository ignores (.gitignore, .ignore, .git/info/exclude; see ignore-rules.ts) is left out and counted
// unless include_ignored; `.git` and `node_modules` are shown but not opened unless include_ignored.
import { relative, sep } from "node:path";
import { tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { hiddenFromTools, realMounts, resolveSandboxPath, toVirtualPath } from "../sandbox/paths.js";
import { type FileToolOptions, type RuntimeLike, getMounts, walk } from "./fs-common.js";
import { ALWAYS_SKIPPED, IgnoreStack, VENDOR_DIR } from "./ignore-rules.js";

export const LS_MAX_ENTRIES = 500;
const NOT_OPENED = new Set([ALWAYS_SKIPPED, VENDOR_DIR]);

export function createLsTool(options: FileToolOptions = {}) {
  return tool(
    async (input, runtime: ToolRuntime) => {
      const mounts = getMounts(runtime as RuntimeLike, options);
      const { include_ignored = false } = input;
      const dir = await resolveSandboxPath(input.path, mounts, { mustExist: true, kind: "dir" });
      const root = (await realMounts(mounts)).find((m) => m.name === dir.mount)!.real;
      const baseRel = relative(root, dir.hostPath).split(sep).join("/");
      let ignoredCount = 0;
      const ignore = include_ignored ? undefined : { stack: IgnoreStack.forWalk(root, baseRel), baseRel, onIgnored: () => void ignoredCount++ };
      const lines: string[] = [];
      let truncated = false;
      for await (const e of walk(dir.hostPath, { maxDepth: 2, hide: hiddenFromTools(mounts), ignore, skipDirs: include_ignored ? undefined : NOT_OPENED })) {
        if (lines.length >= LS_MAX_ENTRIES) {
          truncated = true;
          break;
        }
        const v = toVirtualPath(e.hostPath, mounts);
        lines.push(e.kind === "dir" ? `${v}/` : e.kind === "symlink" ? `${v} (symlink)` : e.kind === "other" ? `${v} (special file)` : v);
      }
      if (lines.length === 0 && ignoredCount === 0) return `${dir.virtualPath} is empty.`;
      if (truncated) lines.push(`[Listing stopped at ${LS_MAX_ENTRIES} entries; ls a subdirectory or use glob to see more.]`);
      if (ignoredCount) lines.push(`[${ignoredCount} entr${ignoredCount === 1 ? "y" : "ies"} ignored by .gitignore/.ignore not shown; include_ignored=true shows them.]`);
      return lines.join("\n");
    },
    {
      name: "ls",
      description:
        "List the contents of a directory two levels deep. Paths are relative to the workspace or under /mnt/user-data/{workspace,uploads,outputs}. Directories end with '/'. Use it to get your bearings in a directory; use glob to find files by name across the tree. Entries the repository ignores (.gitignore, .ignore) are left out and counted, and node_modules and .git are not opened, unless include_ignored=true.",
      schema: z.object({
        description: z.string().optional().describe("Why you are listing this directory (say it first)."),
        path: z.string().describe("The directory to list, e.g. /mnt/user-data/workspace or src."),
        include_ignored: z.boolean().optional().default(false).describe("Also list ignored entries, and open node_modules and .git."),
      }),
    },
  );
}

export const lsTool = createLsTool();
