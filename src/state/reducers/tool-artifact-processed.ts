// Invariant: ordered union without duplicates (a ledger of scanned message ids; first-seen order kept).
import { orderedUnion } from "./util.js";

export function mergeToolArtifactProcessed(existing: readonly string[] | null | undefined, update: readonly string[] | null | undefined): string[] {
  return orderedUnion(existing, update);
}
