// present_files — declare finished deliverables. Decision: a presented file must be a regular file under
// /mnt/user-data/outputs (DeerFlow's rule: outputs is what the user gets; copy other files there first).
// Returns a Command so the `artifacts` state channel receives the virtual paths (ordered union reducer).
import { ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { SandboxPathError, resolveSandboxPath } from "../sandbox/paths.js";
import { type FileToolOptions, type RuntimeLike, getMounts, toolCallIdOf } from "./fs-common.js";

export function createPresentFilesTool(options: FileToolOptions = {}) {
  return tool(
    async (input, runtime: ToolRuntime) => {
      const rt = runtime as RuntimeLike;
      const mounts = getMounts(rt, options);
      if (input.filepaths.length === 0) throw new Error("filepaths is empty; list the files under /mnt/user-data/outputs to present.");
      const paths: string[] = [];
      for (const p of input.filepaths) {
        const r = await resolveSandboxPath(p, mounts, { mustExist: true, kind: "file" });
        if (r.mount !== "outputs") {
          throw new SandboxPathError(`${r.virtualPath} is not under /mnt/user-data/outputs; copy it there first, then present it.`);
        }
        if (!paths.includes(r.virtualPath)) paths.push(r.virtualPath);
      }
      const content = `Presented ${paths.length} file${paths.length === 1 ? "" : "s"}:\n${paths.join("\n")}`;
      return new Command({
        update: {
          artifacts: paths,
          messages: [new ToolMessage({ content, tool_call_id: toolCallIdOf(rt), name: "present_files" })],
        },
      });
    },
    {
      name: "present_files",
      description:
        "Present finished files to the user. Every file must exist under /mnt/user-data/outputs. Use it for deliverables the user asked for (reports, generated files), not for files you changed in the workspace.",
      schema: z.object({
        description: z.string().optional().describe("Why you are presenting these files (say it first)."),
        filepaths: z.array(z.string()).describe("Files under /mnt/user-data/outputs."),
      }),
    },
  );
}

export const presentFilesTool = createPresentFilesTool();
