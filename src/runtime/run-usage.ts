// A run's usage ledger: the one home of the tokens a run spent, by source (docs/events.md, `usage.by_source`), and
// what the thread spent outside runs (memory extraction), which joins the thread's totals at its next run.
// Fed by the stream (the lead's calls), the compaction notice (summary), the title middleware and every subagent's
// model calls (through the run's async context, run-agent.ts); read by the lead's TokenBudget (the budget is on the
// total), by TokenUsage (the subagents' tokens join the thread's totals) and by run.completed.
import type { ResolvedConfig } from "../config/load.js";
import { memoryStoreFor } from "../memory/store.js";
import { type UsageSink, usageOf } from "../middleware/util/usage.js";
import { type TokenUsage, type UsageSource, addUsage, spentAny, zeroUsage } from "../vocabulary/token-usage.js";

export class RunUsage implements UsageSink {
  private sum: TokenUsage = zeroUsage();
  private unsaved: TokenUsage | null = null;
  private carried: TokenUsage | null = null;

  /** Spent for the thread outside any run (memory extraction after an earlier run): its totals only, not this run's. */
  carry(usage: TokenUsage): void {
    this.carried = addUsage(this.carried, usage);
  }

  takeCarried(): TokenUsage | null {
    const taken = this.carried;
    this.carried = null;
    return taken;
  }

  add(source: UsageSource, usage: TokenUsage): void {
    this.sum = addUsage(this.sum, usage, source);
    // The lead's, the title's and the summary's tokens are written to the thread's totals by their own middleware.
    if (source === "subagents") this.unsaved = addUsage(this.unsaved, usage, source);
  }

  /** Everything this run spent so far. */
  get total(): TokenUsage {
    return this.sum;
  }

  sideTokens(): number {
    return this.sum.total_tokens - (this.sum.by_source?.lead?.total_tokens ?? 0);
  }

  takeUnsaved(): TokenUsage | null {
    const taken = this.unsaved;
    this.unsaved = null;
    return taken;
  }
}

/**
 * What memory extraction spent for this thread since its last run goes into `usage` as carried (the thread's totals
 * take it in the run's first step). Returns what clears it from the memory store once the run kept its state.
 */
export function carryMemorySpending(config: Pick<ResolvedConfig, "home" | "memory">, threadId: string, usage: RunUsage): () => void {
  if (!config.memory.enabled) return () => {};
  try {
    const spending = memoryStoreFor(config.home).spending;
    const unbilled = spending.unbilled(threadId);
    if (!unbilled) return () => {};
    usage.carry(unbilled.usage);
    return () => {
      try {
        spending.clear(unbilled.ids);
      } catch {
        // Counted again at the next run: better than failing a run that succeeded over bookkeeping.
      }
    };
  } catch {
    // A memory store that cannot be read (the memory features say so themselves): the run goes on uncounted.
    return () => {};
  }
}

/** What a failed run spent, kept with its error for the result (run.completed, the JSON result). */
export interface FailedRunUsage {
  usage: TokenUsage | null;
  thread_usage: TokenUsage | null;
}

const failedRuns = new WeakMap<object, FailedRunUsage>();

/** Records what the run that ended in `err` spent (null when nothing). */
export function noteFailedRunUsage(err: unknown, usage: TokenUsage, threadUsage: TokenUsage | null): void {
  if (!err || typeof err !== "object") return;
  failedRuns.set(err, { usage: spentAny(usage) ? usage : null, thread_usage: spentAny(threadUsage) ? threadUsage : null });
}

/** What the failed run behind `err` spent; nulls when unknown (it failed before it began). */
export function failedRunUsage(err: unknown): FailedRunUsage {
  return (err && typeof err === "object" ? failedRuns.get(err) : undefined) ?? { usage: null, thread_usage: null };
}

/** `model` whose answers' tokens are handed to `count` (a side call made outside any graph: the goal evaluator). */
export function countedInvoker<M extends { invoke(input: never, options?: never): Promise<unknown> }>(model: M, count: (usage: TokenUsage) => void): M {
  return {
    invoke: async (input: never, options?: never) => {
      const answer = await model.invoke(input, options);
      const usage = usageOf(answer);
      if (usage) count(usage);
      return answer;
    },
  } as M;
}
