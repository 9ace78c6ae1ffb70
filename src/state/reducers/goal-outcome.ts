// Invariant: last write wins (null clears); undefined is no write. Only the goal-clearing write sets it.
import type { GoalOutcome } from "../types.js";
import { lastWrite } from "./util.js";

export function mergeGoalOutcome(existing: GoalOutcome | null, update: GoalOutcome | null | undefined): GoalOutcome | null {
  return lastWrite(existing, update);
}
