// Every string that reaches the screen passes here first: model answers, tool output, titles, questions and
// commands may carry terminal escape sequences or carriage returns (by accident or on purpose) that would move the
// cursor, recolour the screen despite NO_COLOR or retitle the window. One pass at the store's entrance covers
// every panel, present and future.
import { cleanText } from "../format.js";

export function sanitize<T>(value: T): T {
  if (typeof value === "string") return cleanText(value) as T;
  if (Array.isArray(value)) return value.map(sanitize) as T;
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sanitize(v)])) as T;
  }
  return value;
}
