// UsageReport — a subagent's model calls reported to the run's ledger (the lead's TokenUsage adds them to the
// thread's totals, the lead's TokenBudget counts them). WHY afterModel: it runs once per model call with the answer
// (and its `usage_metadata`) as the last message. WHY a callback and not state: the child has no checkpoint, and a
// child that fails or is cut off still spent what it spent up to then.
import { createMiddleware } from "langchain";
import { type UsageSink, type UsageSource, usageOf } from "./util/usage.js";

export function usageReportMiddleware(source: UsageSource, sink: () => UsageSink | undefined) {
  return createMiddleware({
    name: "UsageReport",
    afterModel: (state) => {
      const usage = usageOf(state.messages.at(-1));
      if (usage) sink()?.add(source, usage);
      return undefined;
    },
  });
}
