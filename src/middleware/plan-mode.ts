// PlanMode — plan mode enforced, not only asked for (docs/plan-mode.md): while the approval mode is `plan` (read at
// every call: Shift+Tab switches it while a run works) only tools that read run; every other call gets a refusal the
// model reads, so a model that ignores the reminder still cannot change anything.
// WHY these hooks:
//   • tools: registers `exit_plan_mode(plan)`, Claude Code's way out: the plan goes to the user for approval;
//   • wrapModelCall: the tool is offered only in plan mode, and in plan mode the request gets a trailing reminder of
//     the rules (never stored, fixed text: the system prompt and the provider's prefix cache stay as they are);
//   • wrapToolCall: the gate, and the plan's approval. Approved: the mode becomes the one the user chose (ask, or
//     auto-edit) and the run goes on in the same thread; feedback: plan mode stays and the model reads the words.
//     Nobody to approve (`deerflow run`, goal mode): the plan is the run's result — the tool is `returnDirect`, and
//     only that result carries the tool's name, so only it ends the run (as Clarification's question does);
//   • afterModel: returnDirect is per tools task, so a plan presented beside other calls would fork the graph: the
//     plan is kept alone, the others dropped with a note.
// What reads: the file and search tools, web reads, todos and notes, clarification, skills, the compacted history,
// and `bash` when sandbox/read-only-line.ts says the whole line only reads (not in the background). `task` runs:
// its subagents get this same gate (run-agent.ts gives it to every child), but not with a command acceptance check
// that writes. Everything else (writes, edits, MCP tools, present_files, killing a job) is refused.
// WHY its position (after ArtifactCapture, outside ToolHooks, SandboxAudit and ToolApproval): a call plan mode
// refuses reaches no hook and asks nobody; inside ToolErrorHandling, so a failing broker becomes an error result.
import { createHash } from "node:crypto";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { createMiddleware, tool } from "langchain";
import { z } from "zod";
import { THREAD_DATA_STATE } from "../state/thread-state.js";
import type { ApprovalSettings } from "../sandbox/approvals.js";
import { permissionDenial } from "../sandbox/permission-denial.js";
import { lineOnlyReads, whyNotOnlyReads } from "../sandbox/read-only-line.js";
import { type AuditContext, auditContextOfState } from "../sandbox/audit-context.js";
import { keepToolCalls } from "./util/strip-tool-calls.js";
import { ASK_CLARIFICATION, TRANSIENT_MARKER } from "../vocabulary/message-markers.js";
import { EXIT_PLAN_MODE, PLAN_MARKER, modeAfterPlan, planRefusal } from "../vocabulary/plan-mode.js";

/** Tools that only read (or only write the thread's own state: todos, notes). */
const READING_TOOLS = new Set(["read_file", "ls", "glob", "grep", "view_image", "web_fetch", "web_search", "read_history", "tool_search", "skill", "write_todos", "write_notes", ASK_CLARIFICATION]);

export const exitPlanModeSchema = z.object({
  plan: z.string().min(1).describe("The plan, in Markdown: what you found, the steps (files to change and how), and how you will check the result."),
});

export const exitPlanModeTool = tool(
  // Never reached inside the agent: the middleware answers the call.
  async ({ plan }: z.infer<typeof exitPlanModeSchema>) => plan,
  {
    name: EXIT_PLAN_MODE,
    description:
      "Plan mode only: present your finished plan to the user for approval. Call it once your research (read-only) is done. The user approves it (then plan mode ends and you carry the plan out) or answers with feedback (keep planning and present a revised plan).",
    schema: exitPlanModeSchema,
    returnDirect: true,
  },
);

const RULES =
  "Plan mode is on: research the request, but change nothing. Only tools that read run (read_file, ls, glob, grep, web reads, read-only shell commands, todos); writes, edits and other commands are refused.";
/** The lead's reminder; a subagent's says to report what it found instead (it has no exit_plan_mode). */
export const PLAN_MODE_REMINDER = `<system-reminder>\n${RULES} When the plan is ready, present it with ${EXIT_PLAN_MODE}(plan) and wait for the user's answer.\n</system-reminder>`;
const SUBAGENT_REMINDER = `<system-reminder>\n${RULES} Report what you found; the lead agent plans.\n</system-reminder>`;

const reminder = (text: string) =>
  new HumanMessage({
    id: `plan-mode-${createHash("sha256").update(text).digest("hex").slice(0, 8)}`,
    content: text,
    additional_kwargs: { [TRANSIENT_MARKER]: "plan_mode" },
  });

const OTHER_CALLS_DROPPED = "(Only the plan was presented: the other tool calls of this turn were not run.)";

export interface PlanModeOptions {
  /** The run's approval settings (shared with the TUI, which changes `mode`). */
  approval: ApprovalSettings;
  /** Offer exit_plan_mode (the lead agent); a subagent only gets the gate. Default true. */
  offerExit?: boolean;
}

type Call = { name: string; id?: string; args?: unknown };

/** Why plan mode refuses this call (what the model reads after "plan mode:"), or undefined when it reads. */
async function refusalOf(call: Call, context: AuditContext): Promise<string | undefined> {
  const args = (call.args ?? {}) as Record<string, unknown>;
  if (READING_TOOLS.has(call.name)) return undefined;
  if (call.name === "bash") {
    if (typeof args.command !== "string") return undefined; // the tool's own error says what is missing
    if (args.run_in_background) return `a background command (${args.command})`;
    const why = await whyNotOnlyReads(args.command, context);
    return why ? `the command \`${args.command}\` (${why})` : undefined;
  }
  if (call.name === "bash_jobs") return typeof args.kill === "string" ? `killing background job ${args.kill}` : undefined;
  if (call.name === "task") {
    const checks = Array.isArray(args.acceptance) ? (args.acceptance as { check?: unknown; target?: unknown }[]) : [];
    for (const c of checks)
      if (c?.check === "command_exits_zero" && typeof c.target === "string" && !(await lineOnlyReads(c.target, context)))
        return `the task's acceptance check \`${c.target}\` (it is not known to only read)`;
    return undefined;
  }
  return `${call.name}`;
}

export function planModeMiddleware(options: PlanModeOptions) {
  const { approval } = options;
  const offerExit = options.offerExit ?? true;
  const planning = () => approval.mode === "plan";
  return createMiddleware({
    name: "PlanMode",
    stateSchema: THREAD_DATA_STATE,
    tools: offerExit ? [exitPlanModeTool] : [],
    afterModel: (state) => {
      const last = state.messages.at(-1);
      if (!last || !AIMessage.isInstance(last)) return undefined;
      const calls = last.tool_calls ?? [];
      const exit = calls.find((c) => c.name === EXIT_PLAN_MODE);
      if (!exit || calls.length === 1) return undefined;
      return { messages: [keepToolCalls(last, [exit], OTHER_CALLS_DROPPED)] };
    },
    wrapModelCall: (request, handler) => {
      if (planning()) return handler({ ...request, messages: [...request.messages, reminder(offerExit ? PLAN_MODE_REMINDER : SUBAGENT_REMINDER)] });
      const tools = request.tools.filter((t) => t !== exitPlanModeTool);
      return tools.length === request.tools.length ? handler(request) : handler({ ...request, tools });
    },
    wrapToolCall: async (request, handler) => {
      const { toolCall } = request;
      const id = toolCall.id ?? "";
      // Only the lead presents a plan: a subagent that calls the tool anyway gets the usual unknown-tool answer.
      if (offerExit && toolCall.name === EXIT_PLAN_MODE && (!request.tool || request.tool === exitPlanModeTool)) return answerPlan(approval, request);
      if (!planning()) return handler(request);
      const what = await refusalOf(toolCall, auditContextOfState(request.state));
      if (what === undefined) return handler(request);
      const summary = typeof (toolCall.args as { command?: unknown })?.command === "string" ? String((toolCall.args as { command: string }).command) : JSON.stringify(toolCall.args ?? {});
      return new ToolMessage({
        tool_call_id: id,
        name: toolCall.name,
        status: "error",
        content: planRefusal(what),
        artifact: { denial: permissionDenial({ tool: toolCall.name, toolCallId: id, summary, reason: "plan mode (only tools that read run)", deniedBy: "policy" }) },
      });
    },
  });
}

/** The plan: approved (the mode switches, the run goes on), answered with feedback, or the run's result. */
async function answerPlan(approval: ApprovalSettings, request: { toolCall: Call; runtime: { configurable?: unknown; signal?: AbortSignal } }): Promise<ToolMessage> {
  const { toolCall, runtime } = request;
  const id = toolCall.id ?? "";
  const parsed = exitPlanModeSchema.safeParse(toolCall.args ?? {});
  if (!parsed.success) return new ToolMessage({ tool_call_id: id, status: "error", content: `Error: ${EXIT_PLAN_MODE} needs the plan: { "plan": "<Markdown>" }.` });
  const plan = parsed.data.plan;
  if (approval.mode !== "plan") return new ToolMessage({ tool_call_id: id, content: `Plan mode is not on (the mode is ${approval.mode}): go ahead with the work.` });
  // A headless broker has nobody to ask: the plan is what the run hands back, and nothing was changed.
  if (approval.broker.deniedBy === "headless") {
    return new ToolMessage({
      tool_call_id: id,
      name: EXIT_PLAN_MODE,
      content: "The plan was presented and the run ended here; nothing was changed. When the user says to go ahead, carry it out.",
      additional_kwargs: { [PLAN_MARKER]: { plan } },
    });
  }
  const configurable = runtime.configurable as Record<string, unknown> | undefined;
  const threadId = typeof configurable?.thread_id === "string" ? configurable.thread_id : "default";
  const reply = await approval.broker.request({
    threadId,
    toolCallId: id,
    tool: EXIT_PLAN_MODE,
    kind: "plan",
    command: plan,
    reason: "the plan, for your approval before anything changes",
    scope: `plan:${id}`,
    signal: runtime.signal,
  });
  const answer = typeof reply === "string" ? { decision: reply } : reply;
  // No `name` on either answer: only the headless result may end the run (returnDirect).
  if (answer.decision === "deny") {
    const said = answer.reason?.trim();
    const content = said
      ? `The user did not approve the plan and said: ${JSON.stringify(said)}. Plan mode stays on: take this into account, research more if needed, and present a revised plan with ${EXIT_PLAN_MODE}.`
      : `The user did not approve the plan. Plan mode stays on: ask what to change (ask_clarification), or present a revised plan with ${EXIT_PLAN_MODE}.`;
    return new ToolMessage({ tool_call_id: id, content });
  }
  approval.mode = modeAfterPlan(answer.decision);
  return new ToolMessage({ tool_call_id: id, content: `The user approved the plan; plan mode is over (the mode is now ${approval.mode}). Carry the plan out now.` });
}
