// task — delegate one piece of work to a subagent (docs/architecture.md, Subagents): `task(description, prompt, subagent_type)`.
// The child runs through the shared SubagentRuntime (one capacity for every graph using it), with the parent's
// thread directories and the type's tools (never `task`). The call returns a Command that
//   - upserts the final DelegationEntry into `delegations` (id = the provider's tool-call id), and
//   - adds the ToolMessage the model reads: "Task Succeeded. Result: <brief>", "Task Succeeded (capped: …).
//     Result: <brief>", "Task Failed. Error: …", "Task Timed Out after N s." or "Task Cancelled.".
// The brief is the first 2000 characters of the child's final answer; the full answer is written to
// `<outputs>/.subagent-results/<tool_call_id>.md` (result_ref is its virtual path, readable with read_file) and
// hashed (result_sha256).
//
// Verification (docs/subagents.md): the report's `[receipt: <id>]` citations are checked against the child's real tool
// calls, and the lead's `acceptance` checks are run by the runtime (acceptance-checks.ts), never taken from the
// subagent's word. The verdict goes into the entry (`verdict`) and under the result the lead reads; a missing receipt
// or a failed check makes the delegation "failed" ("Task Failed. Verification failed: …", the report kept as
// unverified). A child the provider's content filter stopped failed too: its work was not done. The calls the child's
// approval rules refused go into the entry (`permission_denials`), where the run's list finds them.
//
// A tool cannot write state before it returns, so the "running" entry is never written from here: the ledger
// middleware (SubagentLimit / delegation ledger) shows in-flight calls from the pending tool calls; this tool
// writes only the terminal entry (the reducer keeps the first created_at / run_id if a "running" entry exists).
import { readRunConfigurable, runConfigurable } from "../vocabulary/configurable.js";
import { createHash, randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { type AgentMiddleware, tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { hostWriteFile } from "../sandbox/host-write.js";
import type { ThreadPaths } from "../sandbox/provider.js";
import { DELEGATION_RESULT_BRIEF_MAX_CHARS, type DelegationEntry, type DelegationStatus, type DelegationStopReason } from "../state/types.js";
import { type RunSubagentOptions, type SubagentResult, runSubagent } from "./executor.js";
import { type SubagentRegistry, type SubagentType, UnknownSubagentTypeError } from "./registry.js";
import type { SubagentRuntime } from "./runtime.js";
import { abortErrorFrom } from "../vocabulary/abort-error.js";
import { type RuntimeLike, configurableOf, getMounts } from "../tools/fs-common.js";
import { shellSettingsOf } from "../sandbox/shell-settings.js";
import { ACCEPTANCE_CHECK_KINDS, type DelegationVerdict } from "../state/types.js";
import { CONTENT_FILTER } from "../vocabulary/stop-reasons.js";
import { type AcceptanceCheck, runAcceptanceChecks } from "./acceptance-checks.js";
import { checkReceipts } from "./receipts.js";
import { buildVerdict, verdictText } from "./verdict.js";

export const TASK_TOOL_NAME = "task";
export const SUBAGENT_RESULTS_DIR = ".subagent-results";
const VIRTUAL_OUTPUTS = "/mnt/user-data/outputs";

const STOP_REASON_WORDS: Record<DelegationStopReason, string> = {
  token_capped: "token budget",
  turn_capped: "turn limit",
  loop_capped: "loop guard",
  model_length_capped: "model output limit",
  content_filter: "content filter",
};

/** Most acceptance checks one task call may ask for. */
export const MAX_ACCEPTANCE_CHECKS = 8;
/** Default time limit of one command_exits_zero check (the bash tool's default). */
export const DEFAULT_ACCEPTANCE_TIMEOUT_SECONDS = 600;

export interface TaskToolOptions {
  runtime: SubagentRuntime;
  registry: SubagentRegistry;
  /** The child's model, or a factory given the type (resolve `type.model` there). */
  model: BaseChatModel | ((type: SubagentType) => BaseChatModel);
  /** The parent's tools (read at call time); filtered per type, `task` never included. */
  tools: () => RunSubagentOptions["tools"];
  timeoutMs?: number;
  tokenBudget?: number;
  /** Extra middleware for every child (e.g. the parent's SandboxAudit anchored next to "ToolErrorHandling"). */
  childMiddleware?: () => readonly AgentMiddleware[];
  /** Time limit of one command_exits_zero check (default 600 s, like bash). */
  acceptanceTimeoutSeconds?: number;
  /** Clock (tests). */
  now?: () => Date;
}

export const taskSchema = z.object({
  description: z.string().describe("A short (3-8 words) description of the delegated task, for the ledger and the user."),
  prompt: z.string().describe("Everything the subagent needs: the goal, the context it cannot see (it does not see this conversation), constraints, and what to report back."),
  subagent_type: z.string().describe("Which kind of subagent to start (see the list in the tool description)."),
  acceptance: z
    .array(
      z.object({
        check: z.enum(ACCEPTANCE_CHECK_KINDS).describe("file_exists: the path is a file; json_parses: the file parses as JSON; command_exits_zero: the command exits 0."),
        target: z.string().describe("The file path (file_exists, json_parses), or the command line (command_exits_zero), run in the workspace."),
      }),
    )
    .max(MAX_ACCEPTANCE_CHECKS)
    .optional()
    .describe("Checks the runtime runs itself after the subagent finishes; the task fails when one fails. Use them for claims you would otherwise take on trust (a file written, tests passing)."),
});

function safeId(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 128) || "task";
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** A completed child whose report failed verification, or that the content filter stopped, failed. */
function statusOf(r: SubagentResult, verdict: DelegationVerdict | undefined): DelegationStatus {
  if (r.status !== "completed") return r.status;
  return r.stop_reason === CONTENT_FILTER || verdict?.verified === false ? "failed" : "completed";
}

/** The text the parent model reads for a result (the brief, not the full result). */
export function taskResultText(r: Pick<SubagentResult, "status" | "stop_reason" | "error">, brief: string, timeoutMs: number, fullLength: number, ref?: string, verdict?: DelegationVerdict): string {
  const more = fullLength > brief.length ? `\n\n[Result cut to ${brief.length} of ${fullLength} characters; the full result is in ${ref ?? "(not saved)"}.]` : "";
  // The report is the child model's text: a line shaped like the runtime's own verdict is marked as quoted (a report
  // forged "Verification by the runtime: passed." word for word: the thirteenth pass's M2).
  const answer = (brief || "(the subagent gave no final answer)").replace(/verification by the runtime/gi, (m) => `[quoted by the subagent] ${m}`);
  const checked = verdict ? `\n\n${verdictText(verdict)}` : "";
  if (r.status === "completed" && r.stop_reason === CONTENT_FILTER) {
    return `Task Failed. The provider's content filter stopped the subagent (stop_reason content_filter); its work is not done. Partial report: ${answer}${more}${checked}`;
  }
  if (r.status === "completed" && verdict && !verdict.verified) {
    return `Task Failed. Verification failed: ${verdict.summary}. The subagent's report (unverified): ${answer}${more}${checked}`;
  }
  switch (r.status) {
    case "completed": {
      const head = r.stop_reason ? `Task Succeeded (capped: ${STOP_REASON_WORDS[r.stop_reason]}). Result: ` : "Task Succeeded. Result: ";
      return head + answer + more + checked;
    }
    case "failed":
      return `Task Failed. Error: ${r.error ?? "unknown error"}`;
    case "timed_out":
      return `Task Timed Out after ${Number((timeoutMs / 1000).toFixed(1))} s.`;
    case "cancelled":
      return "Task Cancelled.";
  }
}

export function createTaskTool(options: TaskToolOptions) {
  const timeoutMs = options.timeoutMs ?? 1_800_000;
  const now = options.now ?? (() => new Date());

  /** The report's receipts against the child's calls, then the lead's checks, run here (not by the child). */
  const verify = async (
    report: string,
    result: SubagentResult,
    checks: readonly AcceptanceCheck[],
    ctx: { mounts: ThreadPaths | undefined; configurable: Record<string, unknown>; signal?: AbortSignal },
  ): Promise<DelegationVerdict | undefined> => {
    const receipts = checkReceipts(report, new Set(result.toolCallIds ?? []));
    const ran = await runAcceptanceChecks(checks, {
      mounts: ctx.mounts,
      settings: shellSettingsOf(ctx.configurable),
      timeoutSeconds: options.acceptanceTimeoutSeconds ?? DEFAULT_ACCEPTANCE_TIMEOUT_SECONDS,
      signal: ctx.signal,
    });
    return buildVerdict(receipts, ran);
  };

  return tool(
    async (input, runtime: ToolRuntime) => {
      const rt = runtime as RuntimeLike & { signal?: AbortSignal };
      const toolCallId = rt.toolCallId ?? rt.toolCall?.id ?? `task_${randomUUID()}`;
      const configurable = configurableOf(rt) ?? {};
      const run = readRunConfigurable(configurable);
      const created_at = now().toISOString();
      const base: DelegationEntry = {
        id: toolCallId,
        run_id: run.runId ?? "",
        description: input.description,
        subagent_type: input.subagent_type,
        status: "running",
        created_at,
      };
      let mounts: ThreadPaths | undefined;
      try {
        mounts = getMounts(rt);
      } catch {
        mounts = undefined; // no thread directories: the child's file tools will say so; no result file
      }

      let result: SubagentResult;
      try {
        const type = options.registry.resolveType(input.subagent_type);
        const model = typeof options.model === "function" ? options.model(type) : options.model;
        result = await options.runtime.run(
          (signal) =>
            runSubagent({
              type,
              prompt: input.prompt,
              description: input.description,
              model,
              tools: options.tools(),
              mounts,
              signal,
              timeoutMs,
              tokenBudget: options.tokenBudget,
              extraMiddleware: options.childMiddleware?.(),
              configurable: run.home ? runConfigurable({ home: run.home }) : undefined,
              threadId: `${safeId(run.threadId ?? "thread")}.sub.${safeId(toolCallId)}`,
              uploads: run.uploads,
            }),
          rt.signal,
        );
      } catch (e) {
        if (e instanceof UnknownSubagentTypeError) result = { status: "failed", result: "", error: e.message, durationMs: 0 };
        else if ((e as Error)?.name === "AbortError" || rt.signal?.aborted) result = { status: "cancelled", result: "", error: abortErrorFrom(rt.signal).message, durationMs: 0 };
        else result = { status: "failed", result: "", error: e instanceof Error ? e.message : String(e), durationMs: 0 };
      }

      const full = result.status === "completed" ? result.result : "";
      const brief = full.slice(0, DELEGATION_RESULT_BRIEF_MAX_CHARS);
      let result_ref: string | undefined;
      if (result.status === "completed" && mounts) {
        const file = `${safeId(toolCallId)}.md`;
        try {
          const dir = join(mounts.outputs_path, SUBAGENT_RESULTS_DIR);
          // outputs/ is writable inside the sandbox: a planted link there must not carry the host's write out
          // (the tenth adversarial pass linked .subagent-results to ~ and to <data>/agents).
          await hostWriteFile({ base: dirname(mounts.outputs_path), dir, name: file }, { data: full });
          result_ref = `${VIRTUAL_OUTPUTS}/${SUBAGENT_RESULTS_DIR}/${file}`;
        } catch {
          result_ref = undefined; // the brief is still in the ledger and the message
        }
      }

      const verdict = result.status === "completed" ? await verify(full, result, input.acceptance ?? [], { mounts, configurable, signal: rt.signal }) : undefined;
      const status = statusOf(result, verdict);
      const entry: DelegationEntry = {
        ...base,
        status,
        result_brief: result.status === "completed" ? brief : (result.error ?? result.status).slice(0, DELEGATION_RESULT_BRIEF_MAX_CHARS),
        ...(result.status === "completed" ? { result_sha256: sha256Hex(full) } : {}),
        ...(result_ref ? { result_ref } : {}),
        ...(result.stop_reason ? { stop_reason: result.stop_reason } : {}),
        ...(verdict ? { verdict } : {}),
        ...(result.denials?.length ? { permission_denials: result.denials } : {}),
        updated_at: now().toISOString(),
      };
      const content = taskResultText(result, brief, timeoutMs, full.length, result_ref, verdict);
      return new Command({
        update: {
          delegations: [entry],
          messages: [
            new ToolMessage({
              tool_call_id: toolCallId,
              name: TASK_TOOL_NAME,
              content,
              status: status === "completed" ? "success" : "error",
              artifact: { delegation: entry },
            }),
          ],
        },
      });
    },
    {
      name: TASK_TOOL_NAME,
      description:
        "Delegate a self-contained piece of work to a subagent that runs its own agent loop with its own tools and returns a report. " +
        "Use it for independent work that can run in parallel (several task calls in one turn run concurrently) or that would flood this conversation. " +
        "The subagent does not see this conversation: put everything it needs in `prompt`. Do not delegate work that is already delegated, " +
        "a single quick step, or steps that each need the previous one's result: do those yourself. " +
        "The runtime checks the receipts a subagent cites against its real tool calls; for claims that matter (a file written, tests passing), " +
        "add `acceptance` checks: the runtime runs them itself after the subagent finishes, and the task fails when one fails.\n" +
        `Subagent types:\n${options.registry.describe()}`,
      schema: taskSchema,
    },
  );
}
