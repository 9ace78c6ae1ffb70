// Invariant: last write wins (null clears); undefined is no write.
import type { TaskNotes } from "../types.js";
import { lastWrite } from "./util.js";

export function mergeTaskNotes(existing: TaskNotes | null, update: TaskNotes | null | undefined): TaskNotes | null {
  return lastWrite(existing, update);
}
