// TokenUsage — WHY afterModel: it is the one hook that runs exactly once per model call with the model's answer
// (and its `usage_metadata`) as the last message, so adding it there counts every call once. WHY beforeAgent: the
// per-run total starts from zero at each run; the per-thread total is carried by the checkpoint.
// WHY its position (lead agent only, anywhere in the stack): it only reads the last AI message and writes its own
// fields. Guards that rewrite that message (LoopDetection, TokenBudget…) keep `usage_metadata`, so the count is the
// same whichever side of them it sits.
import { StateSchema } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { type UsageTotals, UsageTotalsSchema, usageOf, zeroUsage } from "./util/usage.js";

export { type UsageTotals, UsageTotalsSchema, usageOf, zeroUsage };

export function addUsage(a: UsageTotals | null | undefined, b: UsageTotals): UsageTotals {
  const base = a ?? zeroUsage();
  return {
    input_tokens: base.input_tokens + b.input_tokens,
    output_tokens: base.output_tokens + b.output_tokens,
    total_tokens: base.total_tokens + b.total_tokens,
    ...((base.estimated || b.estimated) && { estimated: true }),
  };
}

export const tokenUsageState = new StateSchema({
  /** Tokens of this run's model calls; reset at each run start. */
  run_usage: UsageTotalsSchema.default(zeroUsage),
  /** Tokens of every model call on this thread (survives runs through the checkpoint). */
  thread_usage: UsageTotalsSchema.default(zeroUsage),
});

export function tokenUsageMiddleware() {
  return createMiddleware({
    name: "TokenUsage",
    stateSchema: tokenUsageState,
    beforeAgent: () => ({ run_usage: zeroUsage() }),
    afterModel: (state) => {
      const usage = usageOf(state.messages.at(-1));
      if (!usage) return undefined;
      return { run_usage: addUsage(state.run_usage, usage), thread_usage: addUsage(state.thread_usage, usage) };
    },
  });
}
