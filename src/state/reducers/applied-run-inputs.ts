// Invariant: last write wins (null clears); undefined is no write. Written with the checkpoint it describes.
import type { AppliedRunInputs } from "../types.js";
import { lastWrite } from "./util.js";

export function mergeAppliedRunInputs(existing: AppliedRunInputs | null, update: AppliedRunInputs | null | undefined): AppliedRunInputs | null {
  return lastWrite(existing, update);
}
