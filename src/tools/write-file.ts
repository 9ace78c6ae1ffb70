// write_file — create, overwrite or append (content ≤ 80 KB per call). Overwriting an existing file requires
// that the agent has read its current version (ReadBeforeWrite); creating a file or appending does not.
// `planWrite` does every check and computes the diff without writing: the approval gate shows that diff before the
// edit is applied, and the tool carries it on its result (artifact) for the tool card and stream-json.
import { dirname } from "node:path";
import { tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { declareApprovalGate } from "../sandbox/approvals.js";
import { resolveSandboxPath } from "../sandbox/paths.js";
import type { ThreadPaths } from "../sandbox/provider.js";
import { refuseGitCodeWrite, safeMkdirp, safeReadFile, safeWriteFile } from "../sandbox/safe-fs.js";
import { type EditDiff, editDiff } from "./edit-diff.js";
import { editGate } from "./edit-gate.js";
import { inEditQueue } from "./edit-queue.js";
import { currentBytes, writeThrough } from "./editor-files.js";
import { type FileToolOptions, type RuntimeLike, assertReadCurrent, getMounts, recordRead } from "./fs-common.js";

export const WRITE_MAX_BYTES = 80 * 1024;

export const writeFileSchema = z.object({
  description: z.string().optional().describe("Why you are writing this file (say it first)."),
  path: z.string().describe("The file, relative to the workspace or under /mnt/user-data/..."),
  content: z.string().describe("The text to write."),
  append: z.boolean().optional().default(false).describe("Append to the end instead of replacing the file."),
});
type WriteInput = z.input<typeof writeFileSchema>;

interface WritePlan {
  mounts: ThreadPaths;
  hostPath: string;
  virtualPath: string;
  exists: boolean;
  /** The file's whole new content (an append's too: what the editor is given); unknown for an append to a file too large to read. */
  after: Buffer | string | undefined;
  diff: EditDiff;
}

/** Every check of a write, and its diff; nothing is written. */
export async function planWrite(input: WriteInput, rt: RuntimeLike, options: FileToolOptions): Promise<WritePlan> {
  const mounts = getMounts(rt, options);
  const { content, append = false } = input;
  const size = Buffer.byteLength(content, "utf8");
  if (size > WRITE_MAX_BYTES) {
    throw new Error(`content is ${size} bytes; the cap is ${WRITE_MAX_BYTES} bytes (80 KB) per write_file call. Write the file in parts: the first with append=false, the rest with append=true.`);
  }
  const target = await resolveSandboxPath(input.path, mounts, { kind: "file" });
  refuseGitCodeWrite(target.hostPath, mounts, target.virtualPath); // before any approval is asked
  let before: Buffer | null = null;
  let whole = true;
  if (target.exists) {
    const current = append ? await safeReadFile(target.hostPath, mounts).catch(() => undefined) : await safeReadFile(target.hostPath, mounts);
    const data = current && (await currentBytes(current.realPath, mounts, current.data));
    whole = data !== undefined;
    if (current && data && !append) assertReadCurrent(rt, mounts, current.realPath, data, target.virtualPath);
    // An append to a file too large to read is shown as the added text alone.
    before = data ?? Buffer.alloc(0);
  }
  const after = append && before ? Buffer.concat([before, Buffer.from(content, "utf8")]) : content;
  return { mounts, hostPath: target.hostPath, virtualPath: target.virtualPath, exists: target.exists, after: whole ? after : undefined, diff: editDiff(target.virtualPath, before, after) };
}

export function createWriteFileTool(options: FileToolOptions = {}) {
  const t = tool(
    async (input, runtime: ToolRuntime) => {
      const rt = runtime as RuntimeLike;
      const { content, append = false } = input;
      const { plan, res } = await inEditQueue(getMounts(rt, options).workspace_path ?? "", async () => {
        const plan = await planWrite(input, rt, options);
        const { mounts } = plan;
        if (!plan.exists) await safeMkdirp(dirname(plan.hostPath), mounts);
        const onDisk = () => safeWriteFile(plan.hostPath, mounts, content, { append });
        const res = plan.after === undefined ? await onDisk() : await writeThrough(plan.hostPath, mounts, plan.after, onDisk);
        // The agent knows what it wrote: the new version counts as read.
        // An append written through the editor is its whole new text (plan.after), which the disk may not hold yet.
        if (append && plan.after !== undefined) recordRead(rt, mounts, res.realPath, typeof plan.after === "string" ? Buffer.from(plan.after, "utf8") : plan.after);
        else if (append) {
          const after = await safeReadFile(res.realPath, mounts).catch(() => undefined);
          if (after) recordRead(rt, mounts, after.realPath, after.data);
        } else recordRead(rt, mounts, res.realPath, Buffer.from(content, "utf8"));
        return { plan, res };
      });
      const verb = res.created ? "Created" : append ? "Appended to" : "Overwrote";
      const text = `${verb} ${plan.virtualPath} (${res.bytesWritten} bytes${append && !res.created ? " appended" : ""}).`;
      return [text, { diff: plan.diff }] as [string, { diff: EditDiff }];
    },
    {
      name: "write_file",
      description:
        "Write a text file (creates parent directories). Use it for new files or to rewrite a small file completely; change existing files with str_replace. At most 80 KB per call; use append=true to add to the end. Overwriting an existing file requires having read its current version with read_file.",
      schema: writeFileSchema,
      responseFormat: "content_and_artifact",
    },
  );
  return declareApprovalGate(
    t,
    editGate(writeFileSchema, (input, rt) => planWrite(input, rt, options)),
  );
}

export const writeFileTool = createWriteFileTool();
