// Invariant: null/undefined keeps the list; any list (even []) replaces it: the list is one current view.
import type { Todo } from "../types.js";

export function mergeTodos(existing: Todo[] | null | undefined, update: readonly Todo[] | null | undefined): Todo[] {
  if (update == null) return existing ?? [];
  return [...update];
}
