// write_file — create, overwrite or append (content ≤ 80 KB per call). Overwriting an existing file requires
// that the agent has read its current version (ReadBeforeWrite); creating a file or appending does not.
import { dirname } from "node:path";
import { tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { resolveSandboxPath } from "../sandbox/paths.js";
import { safeMkdirp, safeReadFile, safeWriteFile } from "../sandbox/safe-fs.js";
import { type FileToolOptions, type RuntimeLike, assertReadCurrent, getMounts, recordRead } from "./fs-common.js";

export const WRITE_MAX_BYTES = 80 * 1024;

export function createWriteFileTool(options: FileToolOptions = {}) {
  return tool(
    async (input, runtime: ToolRuntime) => {
      const rt = runtime as RuntimeLike;
      const mounts = getMounts(rt, options);
      const { content, append = false } = input;
      const size = Buffer.byteLength(content, "utf8");
      if (size > WRITE_MAX_BYTES) {
        throw new Error(
          `content is ${size} bytes; the cap is ${WRITE_MAX_BYTES} bytes (80 KB) per write_file call. Write the file in parts: the first with append=false, the rest with append=true.`,
        );
      }
      const target = await resolveSandboxPath(input.path, mounts, { kind: "file" });
      if (target.exists && !append) {
        const current = await safeReadFile(target.hostPath, mounts);
        assertReadCurrent(rt, mounts, current.realPath, current.data, target.virtualPath);
      }
      if (!target.exists) await safeMkdirp(dirname(target.hostPath), mounts);
      const res = await safeWriteFile(target.hostPath, mounts, content, { append });
      // The agent knows what it wrote: the new version counts as read.
      if (append) {
        const after = await safeReadFile(res.realPath, mounts).catch(() => undefined);
        if (after) recordRead(rt, mounts, after.realPath, after.data);
      } else recordRead(rt, mounts, res.realPath, Buffer.from(content, "utf8"));
      const verb = res.created ? "Created" : append ? "Appended to" : "Overwrote";
      return `${verb} ${target.virtualPath} (${res.bytesWritten} bytes${append && !res.created ? " appended" : ""}).`;
    },
    {
      name: "write_file",
      description:
        "Write a text file (creates parent directories). At most 80 KB per call; use append=true to add to the end. Overwriting an existing file requires having read its current version with read_file.",
      schema: z.object({
        description: z.string().optional().describe("Why you are writing this file (say it first)."),
        path: z.string().describe("The file, relative to the workspace or under /mnt/user-data/..."),
        content: z.string().describe("The text to write."),
        append: z.boolean().optional().default(false).describe("Append to the end instead of replacing the file."),
      }),
    },
  );
}

export const writeFileTool = createWriteFileTool();
