// Invariant: last write wins; a null/undefined write keeps the current thread data.
import type { ThreadData } from "../types.js";
import { lastNonNullWrite } from "./util.js";

export function mergeThreadData(existing: ThreadData | null, update: ThreadData | null | undefined): ThreadData | null {
  return lastNonNullWrite(existing, update);
}
