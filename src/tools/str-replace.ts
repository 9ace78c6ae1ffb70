// str_replace — replace exactly one occurrence of old_str (or all with replace_all). Zero or several matches
// are errors that say how many and on which lines. Requires a read of the current version (ReadBeforeWrite).
// `planReplace` does every check and computes the diff without writing (see write-file.ts for why).
import { tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { declareApprovalGate } from "../sandbox/approvals.js";
import { resolveSandboxPath } from "../sandbox/paths.js";
import type { ThreadPaths } from "../sandbox/provider.js";
import { refuseGitCodeWrite, safeReadFile, safeWriteFile } from "../sandbox/safe-fs.js";
import { type EditDiff, editDiff } from "./edit-diff.js";
import { editGate } from "./edit-gate.js";
import { inEditQueue } from "./edit-queue.js";
import { currentBytes, writeThrough } from "./editor-files.js";
import { type FileToolOptions, type RuntimeLike, assertReadCurrent, getMounts, recordRead } from "./fs-common.js";

export const strReplaceSchema = z.object({
  description: z.string().optional().describe("Why you are changing this file (say it first)."),
  path: z.string().describe("The file, relative to the workspace or under /mnt/user-data/..."),
  old_str: z.string().describe("The exact text to replace."),
  new_str: z.string().describe("The replacement text."),
  replace_all: z.boolean().optional().default(false).describe("Replace every occurrence."),
});
type ReplaceInput = z.input<typeof strReplaceSchema>;

interface ReplacePlan {
  mounts: ThreadPaths;
  realPath: string;
  virtualPath: string;
  updated: Buffer;
  at: number[];
  diff: EditDiff;
}

/** Byte offsets of the non-overlapping occurrences of `needle` in `data`, left to right. */
function offsetsOf(data: Buffer, needle: Buffer): number[] {
  const out: number[] = [];
  for (let at = data.indexOf(needle); at !== -1; at = data.indexOf(needle, at + needle.length)) out.push(at);
  return out;
}

/** 1-based line numbers of byte offsets (ascending). */
function linesOf(data: Buffer, offsets: number[]): number[] {
  let line = 1;
  let counted = 0;
  return offsets.map((at) => {
    for (let i = counted; i < at; i++) if (data[i] === 10) line++;
    counted = at;
    return line;
  });
}

/** LF line breaks as CRLF (those already CRLF stay). */
const toCrlf = (s: string) => s.replace(/\r?\n/g, "\r\n");

/**
 * Every check of a replacement, the new content and its diff; nothing is written. The replacement is made on the
 * file's bytes, so bytes that are not UTF-8 (a Latin-1 file) outside the replaced text are kept exactly. read_file
 * shows a CRLF file's lines without their \r: an old_str with bare line breaks that is not found as such is looked
 * for with CRLF breaks (and new_str gets them too).
 */
export async function planReplace(input: ReplaceInput, rt: RuntimeLike, options: FileToolOptions): Promise<ReplacePlan> {
  const mounts = getMounts(rt, options);
  const { old_str, new_str, replace_all = false } = input;
  if (old_str.length === 0) throw new Error("old_str is empty; give the exact text to replace (use write_file to create a file).");
  const target = await resolveSandboxPath(input.path, mounts, { mustExist: true, kind: "file" });
  refuseGitCodeWrite(target.hostPath, mounts, target.virtualPath); // before any approval is asked
  const v = target.virtualPath;
  const current = await safeReadFile(target.hostPath, mounts);
  const data = await currentBytes(current.realPath, mounts, current.data);
  assertReadCurrent(rt, mounts, current.realPath, data, v);
  let needle = Buffer.from(old_str, "utf8");
  let replacement = Buffer.from(new_str, "utf8");
  let offsets = offsetsOf(data, needle);
  if (offsets.length === 0 && /(?<!\r)\n/.test(old_str) && data.includes("\r\n")) {
    needle = Buffer.from(toCrlf(old_str), "utf8");
    replacement = Buffer.from(toCrlf(new_str), "utf8");
    offsets = offsetsOf(data, needle);
  }
  const at = linesOf(data, offsets);
  if (at.length === 0) throw new Error(`old_str was not found in ${v} (0 matches). Copy the text exactly, including whitespace and indentation.`);
  if (at.length > 1 && !replace_all) {
    const shown = at.slice(0, 20).join(", ") + (at.length > 20 ? ", …" : "");
    throw new Error(`old_str matches ${at.length} times in ${v}, at lines ${shown}. Include more surrounding context to make it unique, or set replace_all=true.`);
  }
  const parts: Buffer[] = [];
  let from = 0;
  for (const o of replace_all ? offsets : offsets.slice(0, 1)) {
    parts.push(data.subarray(from, o), replacement);
    from = o + needle.length;
  }
  parts.push(data.subarray(from));
  const updated = Buffer.concat(parts);
  return { mounts, realPath: current.realPath, virtualPath: v, updated, at, diff: editDiff(v, data, updated) };
}

export function createStrReplaceTool(options: FileToolOptions = {}) {
  const t = tool(
    async (input, runtime: ToolRuntime) => {
      const rt = runtime as RuntimeLike;
      const plan = await inEditQueue(getMounts(rt, options).workspace_path ?? "", async () => {
        const p = await planReplace(input, rt, options);
        const res = await writeThrough(p.realPath, p.mounts, p.updated, () => safeWriteFile(p.realPath, p.mounts, p.updated));
        recordRead(rt, p.mounts, res.realPath, p.updated);
        return p;
      });
      const { at } = plan;
      const text = `Replaced ${at.length} occurrence${at.length === 1 ? "" : "s"} in ${plan.virtualPath} (line${at.length === 1 ? "" : "s"} ${at.slice(0, 20).join(", ")}).`;
      return [text, { diff: plan.diff }] as [string, { diff: EditDiff }];
    },
    {
      name: "str_replace",
      description:
        "Replace text in a file: old_str must occur exactly once (unless replace_all=true). Read the file first with read_file. Whitespace and indentation must match exactly. The way to change an existing file: not sed or echo in bash, and not write_file for a small change.",
      schema: strReplaceSchema,
      responseFormat: "content_and_artifact",
    },
  );
  return declareApprovalGate(
    t,
    editGate(strReplaceSchema, (input, rt) => planReplace(input, rt, options)),
  );
}

export const strReplaceTool = createStrReplaceTool();
