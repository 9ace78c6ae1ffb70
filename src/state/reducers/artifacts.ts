// Invariant: ordered union without duplicates: nothing written is ever lost, first-seen order kept.
import { orderedUnion } from "./util.js";

/** Parallel writers (two tools presenting files in one step) both land; re-presenting a path is a no-op. */
export function mergeArtifacts(existing: readonly string[] | null | undefined, update: readonly string[] | null | undefined): string[] {
  return orderedUnion(existing, update);
}
