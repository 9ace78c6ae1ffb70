// TokenBudget (docs/architecture.md, Middleware order) — caps the tokens one run may spend (default 200 000).
// WHY afterModel: the model's answer carries the call's `usage_metadata`; right after it, BEFORE its tool calls run,
// is the moment to judge the budget — at 100% the tool calls are stripped so nothing more executes and the run ends
// on its normal exit. WHY beforeAgent: the budget is per run. WHY wrapModelCall: the 80% warning must reach the next
// model call.
// WHY its position (after LoopDetection, before Clarification): after* hooks run in reverse, so this afterModel runs
// BEFORE LoopDetection's — an over-budget iteration is stripped here and LoopDetection hashes what is left (nothing).
//
// The warning: like LoopDetection, a pending text in this middleware's state (set in afterModel, consumed by the
// next model call, cleared by the next afterModel) that wrapModelCall appends to THAT request only as a trailing
// `<system-reminder>` HumanMessage, never written to `messages` — the system prompt stays byte-identical (provider
// prefix cache) and no system message appears mid-conversation.
// The stop: the AI message is replaced by id with no tool calls and a "[TOKEN BUDGET EXCEEDED]" line, and
// `stop_reason` becomes "token_capped". No `jumpTo: "end"` (it would skip earlier afterModel and every afterAgent hook).
// An answer that already has no tool calls ends the run anyway: it is left alone and not marked capped.
// Without `usage_metadata` a call counts 0 tokens (the budget cannot see what the provider does not report).
// The budget is on everything the run spent: `token_budget_used` counts the lead's calls, `sideTokens` adds the
// subagents' and side calls' (spent inside a tool or another middleware, reported to the run's ledger).
import { TRANSIENT_MARKER } from "../vocabulary/message-markers.js";
import { createHash } from "node:crypto";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { StateSchema } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { z } from "zod";
import { STOP_REASON_VALUE } from "./util/stop-reason.js";
import { TOKEN_CAPPED } from "../vocabulary/stop-reasons.js";
import { stripToolCalls } from "./util/strip-tool-calls.js";
import { usageOf } from "./util/usage.js";

export interface TokenBudgetOptions {
  /** Tokens (input + output, summed over the run's model calls) one run may use. Default 200 000. */
  maxTokens?: number;
  /** Fraction of `maxTokens` at which the model is warned once. Default 0.8. */
  warnRatio?: number;
  /** Tokens this run spent outside the lead's own calls so far (subagents, title, summary): the budget is on the total. */
  sideTokens?: () => number;
}

export const DEFAULT_TOKEN_BUDGET = 200_000;
export const TOKEN_BUDGET_WARNING_PREFIX = "[TOKEN BUDGET WARNING]";
export const TOKEN_BUDGET_EXCEEDED = "[TOKEN BUDGET EXCEEDED]";

export const tokenBudgetState = new StateSchema({
  /** Tokens used by this run's model calls; reset at each run start. */
  token_budget_used: z.number().default(0),
  /** Whether this run was already warned. */
  token_budget_warned: z.boolean().default(false),
  /** Warning to show on the next model call only (null: none). */
  token_budget_pending_warning: z.string().nullable().default(null),
  /** Why the run was stopped by a guard; "token_capped" from here. Last write wins; reset at each run start. */
  stop_reason: STOP_REASON_VALUE,
});

export function tokenBudgetMiddleware(options: TokenBudgetOptions = {}) {
  const maxTokens = options.maxTokens ?? DEFAULT_TOKEN_BUDGET;
  if (!Number.isFinite(maxTokens) || maxTokens <= 0) throw new RangeError(`TokenBudget: maxTokens must be a positive number (got ${String(maxTokens)}).`);
  const warnRatio = options.warnRatio ?? 0.8;
  const warnAt = maxTokens * warnRatio;

  return createMiddleware({
    name: "TokenBudget",
    stateSchema: tokenBudgetState,
    beforeAgent: () => ({
      token_budget_used: 0,
      token_budget_warned: false,
      token_budget_pending_warning: null,
      stop_reason: null,
    }),
    wrapModelCall: (request, handler) => {
      const warning = request.state.token_budget_pending_warning;
      if (!warning) return handler(request);
      const reminder = new HumanMessage({
        id: `token-budget-warning-${createHash("sha256").update(warning).digest("hex").slice(0, 8)}`,
        content: `<system-reminder>\n${warning}\n</system-reminder>`,
        additional_kwargs: { [TRANSIENT_MARKER]: "token_budget_warning" },
      });
      return handler({ ...request, messages: [...request.messages, reminder] });
    },
    afterModel: (state) => {
      const last = state.messages.at(-1);
      const usage = usageOf(last);
      const leadUsed = (state.token_budget_used ?? 0) + (usage?.total_tokens ?? 0);
      const used = leadUsed + (options.sideTokens?.() ?? 0);
      const clearPending = state.token_budget_pending_warning ? { token_budget_pending_warning: null } : {};
      const calls = last && AIMessage.isInstance(last) ? (last.tool_calls ?? []) : [];
      const base = usage ? { token_budget_used: leadUsed } : {};

      if (!last || !AIMessage.isInstance(last) || calls.length === 0) {
        // No tool calls: the run ends here on its own.
        return { ...base, ...clearPending };
      }
      if (used >= maxTokens) {
        const note = `${TOKEN_BUDGET_EXCEEDED} This run used ${used} tokens of its ${maxTokens}-token budget; stopping before the remaining tool calls (${[...new Set(calls.map((c) => c.name))].join(", ")}). Ask to continue in a new message.`;
        return {
          ...base,
          token_budget_pending_warning: null,
          stop_reason: TOKEN_CAPPED,
          messages: [stripToolCalls(last, note)],
        };
      }
      if (used >= warnAt && !state.token_budget_warned) {
        const pct = Math.floor((used / maxTokens) * 100);
        return {
          ...base,
          token_budget_warned: true,
          token_budget_pending_warning: `${TOKEN_BUDGET_WARNING_PREFIX} This run has used ${used} of its ${maxTokens} tokens (${pct}%). Wrap up: finish the most important part with as few tool calls as possible, then answer with what you have and say what is left.`,
        };
      }
      return { ...base, ...clearPending };
    },
  });
}
