// Small pure helpers shared by the reducers. Not reducers themselves.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Order-preserving de-duplication (first occurrence wins). */
export function dedupe<T>(items: Iterable<T>): T[] {
  return [...new Set(items)];
}

/** `existing` followed by the items of `update` not seen yet; duplicates removed, first-seen order kept. */
export function orderedUnion<T>(existing: readonly T[] | null | undefined, update: readonly T[] | null | undefined): T[] {
  if (update == null) return existing == null ? [] : (existing as T[]);
  return dedupe([...(existing ?? []), ...update]);
}

/** Last write wins; `undefined` is "no write" and keeps the current value. `null` is a write. */
export function lastWrite<T>(existing: T | null, update: T | null | undefined): T | null {
  return update === undefined ? existing : update;
}

/** Last write wins; `null` and `undefined` both keep the current value. */
export function lastNonNullWrite<T>(existing: T | null, update: T | null | undefined): T | null {
  return update == null ? existing : update;
}

/** Truncate `text` to at most `max` characters, ending with `suffix` when cut. */
export function truncate(text: string, max: number, suffix = " ... [truncated]"): string {
  if (text.length <= max) return text;
  if (max <= suffix.length) return text.slice(0, max);
  return text.slice(0, max - suffix.length) + suffix;
}
