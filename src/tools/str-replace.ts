// str_replace — replace exactly one occurrence of old_str (or all with replace_all). Zero or several matches
// are errors that say how many and on which lines. Requires a read of the current version (ReadBeforeWrite).
// `planReplace` does every check and computes the diff without writing (see write-file.ts for why).
import { tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { declareApprovalGate } from "../sandbox/approvals.js";
import { resolveSandboxPath } from "../sandbox/paths.js";
import type { ThreadPaths } from "../sandbox/provider.js";
import { safeReadFile, safeWriteFile } from "../sandbox/safe-fs.js";
import { type EditDiff, editDiff } from "./edit-diff.js";
import { editGate } from "./edit-gate.js";
import { inEditQueue } from "./edit-queue.js";
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
  updated: string;
  at: number[];
  diff: EditDiff;
}

/** Every check of a replacement, the new text and its diff; nothing is written. */
export async function planReplace(input: ReplaceInput, rt: RuntimeLike, options: FileToolOptions): Promise<ReplacePlan> {
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
    throw new Error(`old_str matches ${at.length} times in ${v}, at lines ${shown}. Include more surrounding context to make it unique, or set replace_all=true.`);
  }
  const updated = replace_all ? text.split(old_str).join(new_str) : text.replace(old_str, () => new_str);
  return { mounts, realPath: current.realPath, virtualPath: v, updated, at, diff: editDiff(v, current.data, updated) };
}

export function createStrReplaceTool(options: FileToolOptions = {}) {
  const t = tool(
    async (input, runtime: ToolRuntime) => {
      const rt = runtime as RuntimeLike;
      const plan = await inEditQueue(getMounts(rt, options).workspace_path ?? "", async () => {
        const p = await planReplace(input, rt, options);
        const res = await safeWriteFile(p.realPath, p.mounts, p.updated);
        recordRead(rt, p.mounts, res.realPath, Buffer.from(p.updated, "utf8"));
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
  return declareApprovalGate(t, editGate(strReplaceSchema, (input, rt) => planReplace(input, rt, options)));
}

export const strReplaceTool = createStrReplaceTool();
