// Clarification — WHY last in the stack: the last middleware is the INNERMOST wrapToolCall, so it answers
// `ask_clarification` itself (the tool body never runs) and nothing inside it can turn the question into
// something else; outer wrappers (ToolErrorHandling, Guardrail…) still see the call go by.
// WHY these hooks:
//   • tools: registers `ask_clarification`;
//   • wrapToolCall: attended → the question becomes a ToolMessage marked `additional_kwargs.deerflow_clarification`
//     (kept in checkpoints, never sent to providers); unattended → "No user is available: proceed…" and the run
//     goes on;
//   • the tool is `returnDirect`: after the tools step, createAgent's tools router leaves the loop through the
//     graph's exit — the afterAgent hooks (Sandbox release, Title, …) run, as the seed's `Command(goto=END)` does.
//     The router looks at the ToolMessage the step produced, so the unattended answer carries no `name` (it must
//     not end the run) and an error result (bad arguments) goes back to the model;
//   • afterModel: returnDirect is per tools task, and createAgent sends each tool call as its own task, so a
//     question asked alongside other calls would fork the graph (one branch to the exit, one back to the model;
//     their writes collide). When a person can answer, the question is the only call kept: the others are
//     dropped with a note (the tool's description already says the turn ends with it);
//   • beforeModel (canJumpTo "end"): a fallback for a pending question found at the loop's entry (e.g. a thread
//     saved before returnDirect): `{ jumpTo: "end" }`, which goes straight to END (no afterAgent hooks);
//   • wrapModelCall: unattended runs are not offered the tool at all (spec: "the tool is removed, or answers
//     proceed…" — we do both: removed from the model's list, and answered if called anyway).
// The state is checkpointed as usual; the user's answer arrives as a new run on the same thread.
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { createMiddleware, tool } from "langchain";
import { z } from "zod";
import { keepToolCalls } from "./util/strip-tool-calls.js";
import { readRunConfigurable } from "../vocabulary/configurable.js";
import { ASK_CLARIFICATION, CLARIFICATION_MARKER, type ClarificationPayload as MarkedClarification, findPendingClarification } from "../vocabulary/message-markers.js";

export const UNATTENDED_ANSWER = "No user is available: proceed with your best judgment and state your assumptions.";

export const CLARIFICATION_TYPES = ["missing_info", "ambiguous_requirement", "approach_choice", "risk_confirmation", "suggestion"] as const;
export type ClarificationType = (typeof CLARIFICATION_TYPES)[number];

export const askClarificationSchema = z.object({
  question: z.string().min(1).describe("The one question to ask the user, self-contained."),
  clarification_type: z
    .enum(CLARIFICATION_TYPES)
    .describe(
      "missing_info: you lack information only the user has; ambiguous_requirement: the request has several readings; approach_choice: several valid approaches, the user should pick; risk_confirmation: the next step is destructive or risky; suggestion: you propose something and want a yes/no.",
    ),
  context: z.string().optional().describe("Why you ask: what you found and what depends on the answer."),
  options: z.array(z.string()).optional().describe("Possible answers, if the choice is among a few."),
});

/** The question as this middleware writes it (typed; readers use the vocabulary's looser shape). */
export interface ClarificationPayload extends MarkedClarification {
  clarification_type: ClarificationType;
}

export interface UnattendedConfig {
  configurable?: Record<string, unknown>;
  context?: unknown;
}

export interface ClarificationOptions {
  /**
   * Whether nobody can answer. Default: the run's `unattended` configurable (vocabulary/configurable.ts).
   * A function is asked on every run (and every call).
   */
  unattended?: boolean | ((config: UnattendedConfig) => boolean);
  /** Keep offering `ask_clarification` to the model in unattended runs (default false: it is hidden). */
  offerToolWhenUnattended?: boolean;
}

/** The question as the user (and the model, in the history) reads it. */
export function formatClarification(p: ClarificationPayload): string {
  const parts = [p.question.trim()];
  if (p.context?.trim()) parts.push(`Context: ${p.context.trim()}`);
  if (p.options && p.options.length > 0) parts.push(["Options:", ...p.options.map((o, i) => `  ${i + 1}. ${o}`)].join("\n"));
  return parts.join("\n\n");
}

function isUnattended(option: ClarificationOptions["unattended"], config: UnattendedConfig): boolean {
  if (typeof option === "boolean") return option;
  if (typeof option === "function") return option(config) === true;
  return readRunConfigurable(config.configurable).unattended;
}

export const askClarificationTool = tool(
  // Never reached inside the agent: the middleware answers the call. Kept meaningful for direct use.
  async (input: z.infer<typeof askClarificationSchema>) => formatClarification(input),
  {
    name: ASK_CLARIFICATION,
    description:
      "Ask the user a question and wait for the answer. Use it only when you cannot proceed responsibly without the user: missing information only they have, a genuinely ambiguous request, a choice between approaches they should make, or before a risky/destructive step. Ask one clear question; offer options when the choice is among a few. Your turn ends after this call.",
    schema: askClarificationSchema,
    returnDirect: true,
  },
);

const OTHER_CALLS_DROPPED = "(Only the question was asked: the other tool calls of this turn were not run. Make them again after the answer if they are still needed.)";

export function clarificationMiddleware(options: ClarificationOptions = {}) {
  return createMiddleware({
    name: "Clarification",
    tools: [askClarificationTool],
    beforeModel: {
      canJumpTo: ["end"],
      hook: (state) => (findPendingClarification(state.messages) ? { jumpTo: "end" as const } : undefined),
    },
    afterModel: (state, runtime) => {
      const last = state.messages.at(-1);
      if (!last || !AIMessage.isInstance(last)) return undefined;
      const calls = last.tool_calls ?? [];
      const ask = calls.find((c) => c.name === ASK_CLARIFICATION);
      if (!ask || calls.length === 1) return undefined;
      if (!options.offerToolWhenUnattended && isUnattended(options.unattended, { configurable: runtime.configurable, context: runtime.context })) return undefined;
      return { messages: [keepToolCalls(last, [ask], OTHER_CALLS_DROPPED)] };
    },
    wrapModelCall: (request, handler) => {
      if (options.offerToolWhenUnattended) return handler(request);
      const runtime = request.runtime;
      if (!isUnattended(options.unattended, { configurable: runtime.configurable, context: runtime.context })) return handler(request);
      const tools = request.tools.filter((t) => t !== askClarificationTool);
      return tools.length === request.tools.length ? handler(request) : handler({ ...request, tools });
    },
    wrapToolCall: async (request, handler) => {
      const { toolCall, runtime } = request;
      // A user tool of the same name replaces ours (user tools win): then it is not ours to intercept.
      if (toolCall.name !== ASK_CLARIFICATION || (request.tool && request.tool !== askClarificationTool)) return handler(request);
      const id = toolCall.id ?? "";
      // Some models send `null` for an omitted optional field: treat it as omitted.
      const args = Object.fromEntries(Object.entries((toolCall.args ?? {}) as Record<string, unknown>).filter(([, v]) => v !== null));
      const parsed = askClarificationSchema.safeParse(args);
      if (!parsed.success) {
        const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "(input)"}: ${i.message}`).join("; ");
        return new ToolMessage({
          tool_call_id: id,
          name: ASK_CLARIFICATION,
          status: "error",
          content: `Error: Tool '${ASK_CLARIFICATION}' failed with ValidationError: ${detail}. Fix the arguments and call it again, or continue without asking.`,
        });
      }
      const payload: ClarificationPayload = {
        question: parsed.data.question,
        clarification_type: parsed.data.clarification_type,
        ...(parsed.data.context !== undefined ? { context: parsed.data.context } : {}),
        ...(parsed.data.options !== undefined ? { options: parsed.data.options } : {}),
      };
      if (isUnattended(options.unattended, { configurable: runtime.configurable, context: runtime.context })) {
        // No `name`: the tools router must not treat this answer as the returnDirect question (the run goes on).
        return new ToolMessage({ tool_call_id: id, status: "success", content: UNATTENDED_ANSWER });
      }
      return new ToolMessage({
        tool_call_id: id,
        name: ASK_CLARIFICATION,
        status: "success",
        content: formatClarification(payload),
        additional_kwargs: { [CLARIFICATION_MARKER]: payload },
      });
    },
  });
}
