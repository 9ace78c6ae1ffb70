// glob — find files by pattern under a directory (relative patterns only): ripgrep's file list when installed,
// the JavaScript walker otherwise, same answer in path order (see search-files.ts). What the repository ignores,
// `.git` and `node_modules` are left out unless asked for; symlinks are never followed or listed.
import { tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { SandboxPathError, resolveSandboxPath, toVirtualPath } from "../sandbox/paths.js";
import { type FileToolOptions, type RuntimeLike, getMounts, globToRegExp } from "./fs-common.js";
import { VENDOR_DIR } from "./ignore-rules.js";
import { type SearchEnd, type SearchScope, listMatching, pathChecker, stoppedNote, walkEntries } from "./search-files.js";

/**
 * The pattern's leading folders without wildcards ("node_modules/**\/*.js" → "node_modules" and "**\/*.js"): they
 * become the folder searched, so a folder the repository ignores can still be asked for by name, and nothing
 * around it is walked.
 */
export function splitLiteralPrefix(pattern: string): { prefix: string; rest: string } {
  const parts = pattern.split("/");
  let i = 0;
  while (i < parts.length - 1 && parts[i] !== "" && parts[i] !== "." && !/[*?[\]{}]/.test(parts[i]!)) i++;
  return { prefix: parts.slice(0, i).join("/"), rest: parts.slice(i).join("/") };
}

/**
 * ripgrep arguments that narrow its file list to names the pattern's last segment can match (a file type: a -g
 * glob would override the ignore rules), so a pattern like **\/f12*.ts does not stream the whole tree. The exact
 * test of the whole path follows in JavaScript. None when the last segment could span folders.
 */
export function nameFilterArgs(rest: string): string[] {
  const last = rest.slice(rest.lastIndexOf("/") + 1);
  if (!last || last.includes("**") || last.startsWith("include:") || (last.includes(",") && !last.includes("{"))) return [];
  return ["--type-add", `deerflow:${last}`, "--type", "deerflow"];
}

export function createGlobTool(options: FileToolOptions = {}) {
  return tool(
    async (input, runtime: ToolRuntime) => {
      const mounts = getMounts(runtime as RuntimeLike, options);
      const { pattern, include_dirs = false, max_results = 200, include_ignored = false } = input;
      if (pattern.includes("\0")) throw new SandboxPathError("The pattern contains a NUL byte.");
      if (pattern.startsWith("/") || /^[A-Za-z]:[\\/]/.test(pattern)) {
        throw new SandboxPathError("glob patterns must be relative (e.g. **/*.ts); pass the directory to search as `path`.");
      }
      if (pattern.split(/[\\/]/).includes("..")) throw new SandboxPathError('glob patterns must not contain ".."; pass the directory to search as `path`.');
      const searched = await resolveSandboxPath(input.path ?? "/mnt/user-data/workspace", mounts, { mustExist: true, kind: "dir" });
      const { prefix, rest } = splitLiteralPrefix(pattern);
      const none = `No paths match ${JSON.stringify(pattern)} under ${searched.virtualPath}${include_ignored ? "" : " (ignored files skipped; include_ignored=true lists them)"}.`;
      const base = prefix ? await resolveSandboxPath(`${searched.virtualPath}/${prefix}`, mounts).catch(() => undefined) : searched;
      if (!base?.exists || !base.isDirectory) return none;
      const re = globToRegExp(rest);
      const scope: SearchScope = {
        mounts,
        base,
        includeIgnored: include_ignored,
        // node_modules is asked for by a path inside it or a pattern that names it.
        includeVendor: pattern.includes(VENDOR_DIR) || searched.virtualPath.split("/").includes(VENDOR_DIR),
        signal: (runtime as { signal?: AbortSignal } | undefined)?.signal,
      };
      const end: SearchEnd = {};
      const check = pathChecker(mounts);
      const out: string[] = [];
      let more = false;
      if (include_dirs) {
        // ripgrep lists files only: with directories, the walker answers.
        for await (const e of walkEntries(scope, end)) {
          if (!re.test(e.rel)) continue;
          if (out.length >= max_results) {
            more = true;
            break;
          }
          if (!e.dir && !(await check(e.hostPath))) continue;
          out.push(toVirtualPath(e.hostPath, mounts) + (e.dir ? "/" : ""));
        }
      } else {
        const found = await listMatching(scope, (rel) => re.test(rel), max_results, end, nameFilterArgs(rest));
        more = found.more;
        for (const f of found.files) if (await check(f.hostPath)) out.push(toVirtualPath(f.hostPath, mounts));
      }
      if (out.length === 0) return none;
      if (more) out.push(`[Stopped at max_results=${max_results}; narrow the pattern or raise max_results.]`);
      const stopped = stoppedNote(end);
      if (stopped) out.push(stopped);
      return out.join("\n");
    },
    {
      name: "glob",
      description:
        "Find files whose path (relative to `path`, default the workspace) matches a glob pattern: * and ? within a name, ** across directories, [abc], {a,b}. Use **/*.ts to search recursively. Use it (not find or ls -R in bash) to find files by name; use grep to search inside them. Results are in path order. Files the repository ignores (.gitignore, .ignore), .git and node_modules are left out unless the pattern starts with the folder (node_modules/zod/**) or include_ignored=true; symlinks are not listed.",
      schema: z.object({
        description: z.string().optional().describe("Why you are searching (say it first)."),
        pattern: z.string().describe("Relative glob pattern, e.g. **/*.py"),
        path: z.string().optional().describe("Directory to search in (default /mnt/user-data/workspace)."),
        include_dirs: z.boolean().optional().default(false).describe("Also return matching directories."),
        include_ignored: z.boolean().optional().default(false).describe("Also list files the repository ignores, and node_modules."),
        max_results: z.number().int().min(1).max(10000).optional().default(200),
      }),
    },
  );
}

export const globTool = createGlobTool();
