// How many LangGraph steps one run may take, and the error a run that reaches it ends with.
import { DeerflowError, ExitCode } from "../errors.js";
import { findInChain } from "../vocabulary/error-chain.js";

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
