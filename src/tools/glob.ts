// glob — find paths by pattern under a directory (relative patterns only; symlinks never followed).
import { tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { SandboxPathError, resolveSandboxPath, toVirtualPath, hiddenFromTools } from "../sandbox/paths.js";
import { type FileToolOptions, type RuntimeLike, SKIP_DIRS, getMounts, globToRegExp, walk } from "./fs-common.js";

export function createGlobTool(options: FileToolOptions = {}) {
  return tool(
    async (input, runtime: ToolRuntime) => {
      const mounts = getMounts(runtime as RuntimeLike, options);
      const { pattern, include_dirs = false, max_results = 200 } = input;
      if (pattern.includes("\0")) throw new SandboxPathError("The pattern contains a NUL byte.");
      if (pattern.startsWith("/") || /^[A-Za-z]:[\\/]/.test(pattern)) {
        throw new SandboxPathError("glob patterns must be relative (e.g. **/*.ts); pass the directory to search as `path`.");
      }
      if (pattern.split(/[\\/]/).includes("..")) throw new SandboxPathError('glob patterns must not contain ".."; pass the directory to search as `path`.');
      const base = await resolveSandboxPath(input.path ?? "/mnt/user-data/workspace", mounts, { mustExist: true, kind: "dir" });
      const re = globToRegExp(pattern);
      const mentions = [...SKIP_DIRS].filter((d) => pattern.includes(d));
      const skip = new Set([...SKIP_DIRS].filter((d) => !mentions.includes(d)));
      const out: string[] = [];
      let more = false;
      for await (const e of walk(base.hostPath, { skipDirs: skip, hide: hiddenFromTools(mounts) })) {
        if (e.kind === "dir" && !include_dirs) continue;
        if (e.kind === "other") continue;
        if (!re.test(e.rel)) continue;
        if (out.length >= max_results) {
          more = true;
          break;
        }
        out.push(toVirtualPath(e.hostPath, mounts) + (e.kind === "dir" ? "/" : ""));
      }
      if (out.length === 0) return `No paths match ${JSON.stringify(pattern)} under ${base.virtualPath}.`;
      if (more) out.push(`[Stopped at max_results=${max_results}; narrow the pattern or raise max_results.]`);
      return out.join("\n");
    },
    {
      name: "glob",
      description:
        "Find files whose path (relative to `path`, default the workspace) matches a glob pattern: * and ? within a name, ** across directories, [abc], {a,b}. Use **/*.ts to search recursively. Use it (not find or ls -R in bash) to find files by name; use grep to search inside them. node_modules and .git are skipped unless the pattern names them.",
      schema: z.object({
        description: z.string().optional().describe("Why you are searching (say it first)."),
        pattern: z.string().describe("Relative glob pattern, e.g. **/*.py"),
        path: z.string().optional().describe("Directory to search in (default /mnt/user-data/workspace)."),
        include_dirs: z.boolean().optional().default(false).describe("Also return matching directories."),
        max_results: z.number().int().min(1).max(10000).optional().default(200),
      }),
    },
  );
}

export const globTool = createGlobTool();
