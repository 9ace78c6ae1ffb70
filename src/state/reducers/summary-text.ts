// Invariant: last write wins (null clears); undefined is no write.
import { lastWrite } from "./util.js";

export function mergeSummaryText(existing: string | null, update: string | null | undefined): string | null {
  return lastWrite(existing, update);
}
