// The approval gate of the file-editing tools: in `ask` mode an edit is shown as its diff and waits for the user
// (see sandbox/approvals.ts for the modes and src/middleware/tool-approval.ts for where it is asked).
import type { z } from "zod";
import type { ApprovalGate } from "../sandbox/approvals.js";
import { diffStat, type EditDiff } from "./edit-diff.js";
import type { RuntimeLike } from "./fs-common.js";

/** One scope for every edit: "allow edits for this thread" covers the thread's later edits, whatever the file. */
export const EDITS_SCOPE = "edits";

export function editGate<S extends z.ZodType>(schema: S, plan: (input: z.output<S>, rt: RuntimeLike) => Promise<{ diff: EditDiff }>): ApprovalGate {
  return {
    kind: "edit",
    async preview(args, runtime) {
      // Arguments the tool's schema rejects never reach its body (nothing is written): no question to ask.
      const parsed = schema.safeParse(args);
      if (!parsed.success) return null;
      // A plan that fails (outside the workspace, not read first, no match…) throws the tool's own error.
      const { diff } = await plan(parsed.data, runtime as RuntimeLike);
      return { summary: `${diff.created ? "create" : "edit"} ${diff.path} (${diffStat(diff)})`, reason: "file edit", diff, scope: EDITS_SCOPE };
    },
  };
}
