// str_replace — replace exactly one occurrence of old_str (or all with replace_all). Zero or several matches
// are errors that say how many and on which lines. Requires a read of the current version (ReadBeforeWrite).
import { tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { resolveSandboxPath } from "../sandbox/paths.js";
import { safeReadFile, safeWriteFile } from "../sandbox/safe-fs.js";
import { type FileToolOptions, type RuntimeLike, assertReadCurrent, getMounts, recordRead } from "./fs-common.js";

/** 1-based line numbers where each occurrence of `needle` starts. */
export function matchLines(text: string, needle: string): number[] {
  const lines: number[] = [];
  let from = 0;
  let line = 1;
  let counted = 0;
  for (;;) {
    const at = text.indexOf(needle, from);
    if (at === -1) return lines;
    for (let i = counted; i < at; i++) if (text.charCodeAt(i) === 10) line++;
    counted = at;
    lines.push(line);
    from = at + needle.length;
  }
}

export function createStrReplaceTool(options: FileToolOptions = {}) {
  return tool(
    async (input, runtime: ToolRuntime) => {
      const rt = runtime as RuntimeLike;
      const mounts = getMounts(rt, options);
      const { old_str, new_str, replace_all = false } = input;
      if (old_str.length === 0) throw new Error("old_str is empty; give the exact text to replace (use write_file to create a file).");
      const target = await resolveSandboxPath(input.path, mounts, { mustExist: true, kind: "file" });
      const v = target.virtualPath;
      const current = await safeReadFile(target.hostPath, mounts);
      assertReadCurrent(rt, mounts, current.realPath, current.data, v);
      const text = current.data.toString("utf8");
      const at = matchLines(text, old_str);
      if (at.length === 0) throw new Error(`old_str was not found in ${v} (0 matches). Copy the text exactly, including whitespace and indentation.`);
      if (at.length > 1 && !replace_all) {
        const shown = at.slice(0, 20).join(", ") + (at.length > 20 ? ", …" : "");
        throw new Error(
          `old_str matches ${at.length} times in ${v}, at lines ${shown}. Include more surrounding context to make it unique, or set replace_all=true.`,
        );
      }
      const updated = replace_all ? text.split(old_str).join(new_str) : text.replace(old_str, () => new_str);
      const res = await safeWriteFile(current.realPath, mounts, updated);
      recordRead(rt, mounts, res.realPath, Buffer.from(updated, "utf8"));
      return `Replaced ${at.length} occurrence${at.length === 1 ? "" : "s"} in ${v} (line${at.length === 1 ? "" : "s"} ${at.slice(0, 20).join(", ")}).`;
    },
    {
      name: "str_replace",
      description:
        "Replace text in a file: old_str must occur exactly once (unless replace_all=true). Read the file first with read_file. Whitespace and indentation must match exactly.",
      schema: z.object({
        description: z.string().optional().describe("Why you are changing this file (say it first)."),
        path: z.string().describe("The file, relative to the workspace or under /mnt/user-data/..."),
        old_str: z.string().describe("The exact text to replace."),
        new_str: z.string().describe("The replacement text."),
        replace_all: z.boolean().optional().default(false).describe("Replace every occurrence."),
      }),
    },
  );
}

export const strReplaceTool = createStrReplaceTool();
