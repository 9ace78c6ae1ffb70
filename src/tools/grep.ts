// grep — search file contents: ripgrep when installed, the JavaScript walker otherwise, same answer (see
// search-files.ts). What the repository ignores (.gitignore, .ignore, .git/info/exclude), `.git`, `node_modules`,
// binary files and files over 5 MB are skipped; symlinks are never followed; every line shown was read through
// the safe path.
import { tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { SandboxPathError, resolveSandboxPath, toVirtualPath } from "../sandbox/paths.js";
import { type FileToolOptions, type RuntimeLike, getMounts, globToRegExp } from "./fs-common.js";
import { VENDOR_DIR } from "./ignore-rules.js";
import { type GrepQuery, type SearchEnd, GREP_MAX_FILE_BYTES, grepFiles, stoppedNote } from "./search-files.js";

export { GREP_MAX_FILE_BYTES };
const LINE_MAX_CHARS = 300;

function queryOf(input: { pattern: string; literal?: boolean; case_sensitive?: boolean; glob?: string }): GrepQuery {
  const { pattern, literal = false, case_sensitive = false } = input;
  if (pattern.length === 0) throw new Error("pattern is empty.");
  let re: RegExp;
  try {
    re = new RegExp(literal ? pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : pattern, case_sensitive ? "" : "i");
  } catch (err) {
    throw new Error(`Invalid regular expression ${JSON.stringify(pattern)}: ${(err as Error).message}. Set literal=true to search for the text as is.`);
  }
  let fileFilter: GrepQuery["fileFilter"];
  if (input.glob !== undefined) {
    if (input.glob.startsWith("/") || input.glob.split(/[\\/]/).includes("..")) {
      throw new SandboxPathError('The glob filter must be relative and must not contain ".." (e.g. *.ts or src/**/*.ts).');
    }
    fileFilter = { re: globToRegExp(input.glob), onPath: input.glob.includes("/"), glob: input.glob };
  }
  return { re, pattern, literal, caseSensitive: case_sensitive, fileFilter };
}

export function createGrepTool(options: FileToolOptions = {}) {
  return tool(
    async (input, runtime: ToolRuntime) => {
      const mounts = getMounts(runtime as RuntimeLike, options);
      const { max_results = 100, include_ignored = false } = input;
      const q = queryOf(input);
      const base = await resolveSandboxPath(input.path ?? "/mnt/user-data/workspace", mounts, { mustExist: true });
      const scope = {
        mounts,
        base,
        includeIgnored: include_ignored,
        // node_modules is asked for by a path inside it or a glob filter that names it.
        includeVendor: base.virtualPath.split("/").includes(VENDOR_DIR) || (input.glob?.includes(VENDOR_DIR) ?? false),
        signal: (runtime as { signal?: AbortSignal } | undefined)?.signal,
      };
      const out: string[] = [];
      let more = false;
      const end: SearchEnd = {};
      for await (const h of grepFiles(scope, q, end)) {
        if (out.length >= max_results) {
          more = true;
          break;
        }
        const shown = h.text.length > LINE_MAX_CHARS ? h.text.slice(0, LINE_MAX_CHARS) + "…" : h.text;
        out.push(`${toVirtualPath(h.realPath, mounts)}:${h.line}: ${shown}`);
      }
      const notes: string[] = [];
      if (more) notes.push(`[Stopped at max_results=${max_results}; narrow the search or raise max_results.]`);
      const stopped = stoppedNote(end);
      if (stopped) notes.push(stopped);
      if (out.length === 0)
        return [`No matches for ${JSON.stringify(input.pattern)} under ${base.virtualPath}${include_ignored ? "" : " (ignored files skipped; include_ignored=true searches them)"}.`, ...notes].join(
          "\n",
        );
      return [...out, ...notes].join("\n");
    },
    {
      name: "grep",
      description:
        "Search file contents for a regular expression (or literal text with literal=true), case-insensitive unless case_sensitive=true. Returns path:line: text in path order. Use it (not grep or rg in bash) to find where something is defined or used; use glob to find files by name. Files the repository ignores (.gitignore, .ignore), node_modules, .git, binary files and files over 5 MB are skipped; include_ignored=true searches ignored files and node_modules too.",
      schema: z.object({
        description: z.string().optional().describe("Why you are searching (say it first)."),
        pattern: z.string().describe("Regular expression (ripgrep's syntax when installed; look-around falls back to JavaScript's), or literal text when literal=true."),
        path: z.string().optional().describe("File or directory to search (default /mnt/user-data/workspace)."),
        glob: z.string().optional().describe("Only search files matching this glob (e.g. *.ts; with a '/' it matches the relative path)."),
        literal: z.boolean().optional().default(false),
        case_sensitive: z.boolean().optional().default(false),
        include_ignored: z.boolean().optional().default(false).describe("Also search files the repository ignores, and node_modules."),
        max_results: z.number().int().min(1).max(10000).optional().default(100),
      }),
    },
  );
}

export const grepTool = createGrepTool();
