// Invariant: last write wins (null clears); undefined is no write.
import type { BackgroundTask } from "../types.js";
import { lastWrite } from "./util.js";

export function mergeBackgroundTasks(existing: BackgroundTask[] | null, update: BackgroundTask[] | null | undefined): BackgroundTask[] | null {
  return lastWrite(existing, update);
}
