// Invariant: last write wins (null clears); undefined is no write.
import type { TaskHistory } from "../types.js";
import { lastWrite } from "./util.js";

export function mergeTaskHistory(existing: TaskHistory | null, update: TaskHistory | null | undefined): TaskHistory | null {
  return lastWrite(existing, update);
}
