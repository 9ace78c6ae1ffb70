// The one way to end a goal (docs/cli.md, run --goal). Pure: builds the state update the goal runtime returns.
import { GOAL_CLEAR, type GoalClear, type GoalOutcome } from "./types.js";

/**
 * The update that clears the active goal, recording `outcome` (when the goal was met) in the same
 * write, so a checkpoint never shows the goal gone without its outcome. For the goal runtime only:
 * any other writer must leave `goal` alone (null/undefined keeps it).
 */
export function clearGoalUpdate(outcome: GoalOutcome | null = null): { goal: GoalClear; goal_outcome?: GoalOutcome } {
  return outcome === null ? { goal: GOAL_CLEAR } : { goal: GOAL_CLEAR, goal_outcome: outcome };
}
