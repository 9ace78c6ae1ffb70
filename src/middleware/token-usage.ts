// TokenUsage — WHY afterModel: it is the one hook that runs exactly once per model call with the model's answer
// (and its `usage_metadata`) as the last message, so adding it there counts every call once. WHY beforeAgent: the
// per-run total starts from zero at each run; the per-thread total is carried by the checkpoint.
// WHY its position (lead agent only, anywhere in the stack): it only reads the last AI message and writes its own
// fields. Guards that rewrite that message (LoopDetection, TokenBudget…) keep `usage_metadata`, so the count is the
// same whichever side of them it sits.
// Subagents' tokens are spent inside a tool call, outside this graph's state: the run's ledger (`sink`) holds them
// until the next lead call or the run's end, when they are added here, so the thread's totals hold every source.
// Memory extraction runs after a run ended: what it spent joins the thread's totals (never a run's) at the next run.
import { StateSchema } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { type UsageSink, type UsageTotals, UsageTotalsSchema, addUsage, usageOf, zeroUsage } from "./util/usage.js";

export { type UsageTotals, UsageTotalsSchema, addUsage, usageOf, zeroUsage };

export const tokenUsageState = new StateSchema({
  /** Tokens of this run's model calls; reset at each run start. */
  run_usage: UsageTotalsSchema.default(zeroUsage),
  /** Tokens of every model call on this thread (survives runs through the checkpoint). */
  thread_usage: UsageTotalsSchema.default(zeroUsage),
});

export interface TokenUsageOptions {
  /** The current run's ledger, whose unsaved side tokens (subagents') are added to the totals. */
  sink?: () => UsageSink | undefined;
}

export function tokenUsageMiddleware(options: TokenUsageOptions = {}) {
  const withUnsaved = (state: { run_usage?: UsageTotals; thread_usage?: UsageTotals }, update: { run_usage?: UsageTotals; thread_usage?: UsageTotals }) => {
    const side = options.sink?.()?.takeUnsaved();
    if (!side) return update;
    return { run_usage: addUsage(update.run_usage ?? state.run_usage, side), thread_usage: addUsage(update.thread_usage ?? state.thread_usage, side) };
  };
  return createMiddleware({
    name: "TokenUsage",
    stateSchema: tokenUsageState,
    beforeAgent: (state) => {
      // Memory extraction after an earlier run spent for this thread, not for this run.
      const carried = options.sink?.()?.takeCarried();
      return { run_usage: zeroUsage(), ...(carried && { thread_usage: addUsage(state.thread_usage, carried) }) };
    },
    afterModel: (state) => {
      const usage = usageOf(state.messages.at(-1));
      const own = usage ? { run_usage: addUsage(state.run_usage, usage, "lead"), thread_usage: addUsage(state.thread_usage, usage, "lead") } : {};
      const update = withUnsaved(state, own);
      return Object.keys(update).length > 0 ? update : undefined;
    },
    afterAgent: (state) => {
      const update = withUnsaved(state, {});
      return Object.keys(update).length > 0 ? update : undefined;
    },
  });
}
