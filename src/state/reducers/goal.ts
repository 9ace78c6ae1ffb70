// Invariant: null/undefined keeps the goal, a goal replaces it, and only GOAL_CLEAR removes it.
import { GOAL_CLEAR, type GoalClear, type GoalState } from "../types.js";

/**
 * Middleware that writes `goal: null` (or forgets the key) can never wipe an active goal; the goal
 * runtime ends a goal by writing the GOAL_CLEAR marker (see `clearGoalUpdate`).
 */
export function mergeGoal(existing: GoalState | null | undefined, update: GoalState | GoalClear | null | undefined): GoalState | null {
  if (update == null) return existing ?? null;
  if (update === GOAL_CLEAR) return null;
  return update;
}
