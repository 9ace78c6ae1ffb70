// read_file — numbered lines ("    12→text"), optional line range, paged (2000 lines / 200 KB per call).
// Binary files are described (size + sniffed type), never dumped. A successful read records the file's sha256
// for ReadBeforeWrite.
import { tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { SKILLS_VIRTUAL_ROOT, resolveSandboxPath } from "../sandbox/paths.js";
import { shellSettingsOf } from "../sandbox/shell-settings.js";
import { readSkillPath } from "../skills/activation.js";
import { safeReadFile } from "../sandbox/safe-fs.js";
import { currentBytes } from "./editor-files.js";
import { type FileToolOptions, type RuntimeLike, describeBinary, getMounts, recordRead } from "./fs-common.js";

export const READ_MAX_LINES = 2000;
export const READ_MAX_BYTES = 200 * 1024;

export function numberLine(n: number, text: string): string {
  return `${String(n).padStart(6, " ")}→${text}`;
}

/** The file's bytes: a thread file (recorded for ReadBeforeWrite), or an installed skill's file (read-only). */
async function readTarget(path: string, runtime: RuntimeLike, options: FileToolOptions): Promise<{ data: Buffer; virtualPath: string }> {
  if (path.startsWith(`${SKILLS_VIRTUAL_ROOT}/`)) {
    return readSkillPath(path, shellSettingsOf(runtime.configurable ?? runtime.config?.configurable).skillDirs);
  }
  const mounts = getMounts(runtime, options);
  const target = await resolveSandboxPath(path, mounts, { mustExist: true, kind: "file" });
  const disk = await safeReadFile(target.hostPath, mounts);
  // The editor's text when `deerflow acp` has one (unsaved changes included): what a later edit is checked against.
  const data = await currentBytes(disk.realPath, mounts, disk.data);
  recordRead(runtime, mounts, disk.realPath, data);
  return { data, virtualPath: target.virtualPath };
}

export function createReadFileTool(options: FileToolOptions = {}) {
  return tool(
    async (input, runtime: ToolRuntime) => {
      const { data, virtualPath: v } = await readTarget(input.path, runtime as RuntimeLike, options);
      const binary = describeBinary(data);
      if (binary) {
        const hint = binary.endsWith("image") ? " Use view_image to look at it." : "";
        return `${v} is a binary file (${binary}, ${data.length} bytes); its contents are not shown.${hint}`;
      }
      if (data.length === 0) return `${v} is empty (0 bytes).`;
      const text = data.toString("utf8");
      const lines = text.split("\n");
      if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
      const total = lines.length;
      const start = input.start_line ?? 1;
      if (start > total) throw new Error(`start_line ${start} is past the end of ${v}, which has ${total} line(s).`);
      if (input.end_line !== undefined && input.end_line < start) throw new Error(`end_line ${input.end_line} is before start_line ${start}.`);
      const wantedEnd = Math.min(input.end_line ?? total, total);
      const out: string[] = [];
      let bytes = 0;
      let n = start;
      for (; n <= wantedEnd && n - start < READ_MAX_LINES; n++) {
        let line = lines[n - 1]!.replace(/\r$/, "");
        const room = READ_MAX_BYTES - bytes;
        if (Buffer.byteLength(line) > room) {
          if (out.length > 0) break;
          line = line.slice(0, room) + ` … [line cut at ${READ_MAX_BYTES} bytes]`;
        }
        bytes += Buffer.byteLength(line) + 1;
        out.push(numberLine(n, line));
      }
      const last = n - 1;
      if (last < wantedEnd) {
        out.push(`[Showing lines ${start}-${last} of ${total} (a page is at most ${READ_MAX_LINES} lines / ${READ_MAX_BYTES / 1024} KB). To read on, call read_file with start_line=${last + 1}.]`);
      }
      return out.join("\n");
    },
    {
      name: "read_file",
      description:
        "Read a text file with numbered lines (`    12→text`). Optionally give start_line/end_line (1-based, inclusive). Long files are paged (2000 lines / 200 KB per call); binary files are only described. Read a file before you change it. Use it instead of cat, head or tail in bash; read several files in one turn when you need them all.",
      schema: z.object({
        description: z.string().optional().describe("Why you are reading this file (say it first)."),
        path: z.string().describe("The file, relative to the workspace or under /mnt/user-data/..."),
        start_line: z.number().int().min(1).optional().describe("First line to show (1-based)."),
        end_line: z.number().int().min(1).optional().describe("Last line to show (inclusive)."),
      }),
    },
  );
}

export const readFileTool = createReadFileTool();
