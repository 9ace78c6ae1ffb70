// The two limits on one run: its time (`--timeout`, `runTimeout`: an abort that reads as `timeout`, not
// `interrupted`) and LangGraph's step limit (a guard stop, exit 5, said as what it is for a user).
import { DeerflowError, ExitCode } from "../errors.js";
import { findInChain } from "../vocabulary/error-chain.js";
import type { RunRequest } from "./run-thread.js";

/** Runs whose time limit fired (so their abort reads as `timeout`, not `interrupted`). */
const timedOut = new Set<string>();

/** Whether the run's time limit fired (answers once: the record is dropped). */
export function tookTimeLimit(runId: string): boolean {
  return timedOut.delete(runId);
}

/** The run's abort signal: the caller's, and the time limit (`--timeout`, `runTimeout`) when there is one. */
export function runSignal(req: RunRequest, runId: string): { signal: AbortSignal | undefined; dispose(): void } {
  if (!req.timeoutSeconds) return { signal: req.signal, dispose: () => {} };
  const controller = new AbortController();
  const onAbort = () => controller.abort(req.signal?.reason);
  req.signal?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut.add(runId);
    controller.abort(Object.assign(new Error(`run time limit of ${req.timeoutSeconds} s`), { name: "AbortError" }));
  }, req.timeoutSeconds * 1000);
  timer.unref?.();
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", onAbort);
    },
  };
}

/** Four steps per model turn (fused before-model hooks, model, fused after-model hooks, tools), so some 100 turns. */
const DEFAULT_RUN_STEP_LIMIT = 400;
const STEPS_PER_TURN = 4;

/** The limit for a run: DEERFLOW_RUN_STEP_LIMIT when it is a whole number ≥ 1 (tests reach a small one in a few turns). */
export function runStepLimit(): number {
  const n = Number(process.env.DEERFLOW_RUN_STEP_LIMIT);
  return Number.isInteger(n) && n >= 1 ? n : DEFAULT_RUN_STEP_LIMIT;
}

export function isStepLimit(err: unknown): boolean {
  return findInChain(err, (e) => (e as { name?: unknown } | null)?.name === "GraphRecursionError") !== undefined;
}

/** LangGraph's recursion limit, said as what it is for a user (a guard, exit 5; the run is rolled back). */
export function stepLimitError(threadId: string): DeerflowError {
  const limit = runStepLimit();
  const turns = Math.max(1, Math.floor(limit / STEPS_PER_TURN));
  return new DeerflowError(`The run reached deerflow's limit of ${limit} graph steps (about ${turns} model turn${turns === 1 ? "" : "s"}) and was rolled back.`, {
    exitCode: ExitCode.guardStop,
    hint: `Split the work into smaller requests: \`deerflow run --thread ${threadId} "…"\`.`,
  });
}
