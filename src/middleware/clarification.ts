// Clarification — WHY last in the stack: the last middleware is the INNERMOST wrapToolCall, so it answers
// `ask_clarification` itself (the tool body never runs) and nothing inside it can turn the question into
// something else; outer wrappers (ToolErrorHandling, Guardrail…) still see the call go by.
// WHY these hooks:
//   • tools: registers `ask_clarification`;
//   • wrapToolCall: attended → the question becomes a ToolMessage marked `additional_kwargs.deerflow_clarification`
//     (kept in checkpoints, never sent to providers); unattended → "No user is available: proceed…" and the run
//     goes on;
//   • beforeModel (canJumpTo "end"): right after the tools step, if the latest tool results contain a marked
//     clarification, `{ jumpTo: "end" }` — the model is not called again and the run ends;
//   • wrapModelCall: unattended runs are not offered the tool at all (spec: "the tool is removed, or answers
//     proceed…" — we do both: removed from the model's list, and answered if called anyway).
// The state is checkpointed as usual; the user's answer arrives as a new run on the same thread.
//
// Verified on langchain 1.5.14 and worth knowing: a jump to "end" from beforeModel goes straight to END, so the
// afterAgent hooks (Sandbox release, …) do NOT run on a clarification stop. The alternative, `returnDirect` on
// the tool (the tools router then leaves through the afterAgent hooks), is broken with parallel tool calls: each
// Send task routes on its own, one to the exit and one back to the model, the graph forks, and the two branches'
// `jumpTo` writes collide (InvalidUpdateError). So: no returnDirect; the jump is the mechanism.
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { createMiddleware, tool } from "langchain";
import { z } from "zod";
import { readRunConfigurable } from "../vocabulary/configurable.js";
import { ASK_CLARIFICATION, CLARIFICATION_MARKER, type ClarificationPayload as MarkedClarification, findPendingClarification } from "../vocabulary/message-markers.js";

export const UNATTENDED_ANSWER = "No user is available: proceed with your best judgment and state your assumptions.";

export const CLARIFICATION_TYPES = [
  "missing_info",
  "ambiguous_requirement",
  "approach_choice",
  "risk_confirmation",
  "suggestion",
] as const;
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
  },
);

export function clarificationMiddleware(options: ClarificationOptions = {}) {
  return createMiddleware({
    name: "Clarification",
    tools: [askClarificationTool],
    beforeModel: {
      canJumpTo: ["end"],
      hook: (state) => (findPendingClarification(state.messages) ? { jumpTo: "end" as const } : undefined),
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
        return new ToolMessage({ tool_call_id: id, name: ASK_CLARIFICATION, status: "success", content: UNATTENDED_ANSWER });
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
