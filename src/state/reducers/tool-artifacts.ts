// Invariant: de-duplicated by handle, the latest entry wins (in its first-seen position), at most the
// last 100 entries; empty keeps.
import { TOOL_ARTIFACTS_MAX_ENTRIES, type ArtifactEntry } from "../types.js";
import { isRecord } from "./util.js";

/** Short handles for long references: the model passes the handle, a middleware resolves it. */
export function mergeToolArtifacts(existing: readonly ArtifactEntry[] | null | undefined, update: readonly ArtifactEntry[] | null | undefined): ArtifactEntry[] {
  if (update == null || update.length === 0) return (existing ?? []) as ArtifactEntry[];
  const byHandle = new Map<string, ArtifactEntry>();
  for (const entry of [...(existing ?? []), ...update]) {
    if (!isRecord(entry) || typeof entry.handle !== "string") continue;
    byHandle.set(entry.handle, entry); // Map.set on an existing key keeps its position
  }
  const merged = [...byHandle.values()];
  return merged.length > TOOL_ARTIFACTS_MAX_ENTRIES ? merged.slice(-TOOL_ARTIFACTS_MAX_ENTRIES) : merged;
}
