// grep — search file contents (pure Node). Binary files, node_modules and .git are skipped; symlinks are never
// followed; every file is opened through safeReadFile (so hard links and swapped-in symlinks are skipped too).
import { tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { SandboxPathError, resolveSandboxPath, toVirtualPath, hiddenFromTools } from "../sandbox/paths.js";
import { safeReadFile } from "../sandbox/safe-fs.js";
import { type FileToolOptions, type RuntimeLike, SKIP_DIRS, getMounts, globToRegExp, walk } from "./fs-common.js";

/** Files bigger than this are not searched. */
export const GREP_MAX_FILE_BYTES = 5 * 1024 * 1024;
const LINE_MAX_CHARS = 300;

export function looksBinary(data: Buffer): boolean {
  return data.subarray(0, 8192).includes(0);
}

export function createGrepTool(options: FileToolOptions = {}) {
  return tool(
    async (input, runtime: ToolRuntime) => {
      const mounts = getMounts(runtime as RuntimeLike, options);
      const { pattern, literal = false, case_sensitive = false, max_results = 100 } = input;
      if (pattern.length === 0) throw new Error("pattern is empty.");
      let re: RegExp;
      try {
        re = new RegExp(literal ? pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : pattern, case_sensitive ? "" : "i");
      } catch (err) {
        throw new Error(`Invalid regular expression ${JSON.stringify(pattern)}: ${(err as Error).message}. Set literal=true to search for the text as is.`);
      }
      if (input.glob !== undefined) {
        if (input.glob.startsWith("/") || input.glob.split(/[\\/]/).includes("..")) {
          throw new SandboxPathError('The glob filter must be relative and must not contain ".." (e.g. *.ts or src/**/*.ts).');
        }
      }
      const fileRe = input.glob ? globToRegExp(input.glob) : undefined;
      const globHasSlash = input.glob?.includes("/") ?? false;
      const base = await resolveSandboxPath(input.path ?? "/mnt/user-data/workspace", mounts, { mustExist: true });
      const files: Array<{ hostPath: string; rel: string }> = [];
      if (base.isDirectory) {
        for await (const e of walk(base.hostPath, { skipDirs: SKIP_DIRS, hide: hiddenFromTools(mounts) })) {
          if (e.kind !== "file") continue;
          if (fileRe && !fileRe.test(globHasSlash ? e.rel : e.rel.slice(e.rel.lastIndexOf("/") + 1))) continue;
          files.push(e);
        }
      } else {
        files.push({ hostPath: base.hostPath, rel: base.hostPath });
      }
      const out: string[] = [];
      let more = false;
      let skipped = 0;
      outer: for (const f of files) {
        let data: Buffer;
        try {
          const r = await safeReadFile(f.hostPath, mounts, { maxBytes: GREP_MAX_FILE_BYTES });
          if (r.truncated) {
            skipped++;
            continue;
          }
          data = r.data;
        } catch {
          skipped++;
          continue;
        }
        if (looksBinary(data)) continue;
        const lines = data.toString("utf8").split("\n");
        for (let i = 0; i < lines.length; i++) {
          const line = lines[i]!.replace(/\r$/, "");
          if (!re.test(line)) continue;
          if (out.length >= max_results) {
            more = true;
            break outer;
          }
          const shown = line.length > LINE_MAX_CHARS ? line.slice(0, LINE_MAX_CHARS) + "…" : line;
          out.push(`${toVirtualPath(f.hostPath, mounts)}:${i + 1}: ${shown}`);
        }
      }
      const notes: string[] = [];
      if (more) notes.push(`[Stopped at max_results=${max_results}; narrow the search or raise max_results.]`);
      if (skipped) notes.push(`[${skipped} file(s) skipped: too large, hard-linked or unreadable.]`);
      if (out.length === 0) return [`No matches for ${JSON.stringify(pattern)} under ${base.virtualPath}.`, ...notes].join("\n");
      return [...out, ...notes].join("\n");
    },
    {
      name: "grep",
      description:
        "Search file contents for a regular expression (or literal text with literal=true), case-insensitive unless case_sensitive=true. Returns path:line: text. Use it (not grep or rg in bash) to find where something is defined or used; use glob to find files by name. Binary files, node_modules and .git are skipped.",
      schema: z.object({
        description: z.string().optional().describe("Why you are searching (say it first)."),
        pattern: z.string().describe("JavaScript regular expression, or literal text when literal=true."),
        path: z.string().optional().describe("File or directory to search (default /mnt/user-data/workspace)."),
        glob: z.string().optional().describe("Only search files matching this glob (e.g. *.ts; with a '/' it matches the relative path)."),
        literal: z.boolean().optional().default(false),
        case_sensitive: z.boolean().optional().default(false),
        max_results: z.number().int().min(1).max(10000).optional().default(100),
      }),
    },
  );
}

export const grepTool = createGrepTool();
