// The user's review of learned facts, shared by `deerflow memory approve|reject` and `/memory approve|reject`:
// which facts the words name ("all" = every pending fact the user can see here: global ones and this project's;
// numbers = those facts, whichever project), so both front ends accept the same input and say the same things.
import type { Fact, MemoryStore } from "./store.js";

/** The pending facts shown here: global ones and the project's (every project's with `all`). */
export function pendingHere(store: MemoryStore, project: string, all = false): Fact[] {
  return store.list({ project: project || undefined, all, status: "pending" });
}

/** The ids `words` name, or what is wrong with them (one line). */
export function reviewTargets(store: MemoryStore, words: readonly string[], project: string): { ids: number[] } | { problem: string } {
  if (words.length === 1 && words[0] === "all") return { ids: pendingHere(store, project).map((f) => f.id) };
  const ids = words.map(Number);
  if (ids.length === 0 || ids.some((n) => !Number.isInteger(n) || n <= 0)) return { problem: "Give the numbers of pending facts, or all." };
  const notPending = ids.filter((id) => store.get(id)?.status !== "pending");
  if (notPending.length) return { problem: `No pending fact ${notPending.map((n) => `#${n}`).join(", ")} (the numbers are in memory pending).` };
  return { ids };
}

/** One line per pending fact, as both front ends list them. */
export function pendingLine(f: Fact): string {
  return `#${f.id}  ${f.scope === "global" ? "global " : "project"}  ${f.text}`;
}
