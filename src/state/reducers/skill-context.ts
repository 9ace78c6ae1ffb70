// Invariant: de-duplicated by path, a re-read moves the skill to the end (LRU), at most the last 8
// entries, descriptions at most 500 characters; empty keeps.
import { SKILL_CONTEXT_MAX_ENTRIES, SKILL_DESCRIPTION_MAX_CHARS, type SkillContextEntry } from "../types.js";
import { isRecord, truncate } from "./util.js";

function normalize(entry: SkillContextEntry): SkillContextEntry {
  if (typeof entry.description === "string" && entry.description.length <= SKILL_DESCRIPTION_MAX_CHARS) return entry;
  const description = typeof entry.description === "string" ? truncate(entry.description, SKILL_DESCRIPTION_MAX_CHARS) : "";
  return { ...entry, description };
}

/** Skill references (never bodies) that must survive compaction. */
export function mergeSkillContext(existing: readonly SkillContextEntry[] | null | undefined, update: readonly SkillContextEntry[] | null | undefined): SkillContextEntry[] {
  if (update == null || update.length === 0) return (existing ?? []) as SkillContextEntry[];
  const byPath = new Map<string, SkillContextEntry>();
  for (const entry of [...(existing ?? []), ...update]) {
    if (!isRecord(entry) || typeof entry.path !== "string") continue;
    byPath.delete(entry.path); // a Map keeps insertion order: re-inserting moves the path to the end
    byPath.set(entry.path, normalize(entry));
  }
  const merged = [...byPath.values()];
  return merged.length > SKILL_CONTEXT_MAX_ENTRIES ? merged.slice(-SKILL_CONTEXT_MAX_ENTRIES) : merged;
}
