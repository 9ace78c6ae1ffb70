// Invariant: last write wins (the uploads of this turn; [] or null clears); undefined is no write.
import type { UploadedFile } from "../types.js";
import { lastWrite } from "./util.js";

export function mergeUploadedFiles(existing: UploadedFile[] | null, update: UploadedFile[] | null | undefined): UploadedFile[] | null {
  return lastWrite(existing, update);
}
