// Invariant: dict merge where the new entry wins per path; {} clears; null/undefined keeps.
import type { ViewedImages } from "../types.js";

/** Only metadata lives here (never image bytes); the view-image middleware clears it with `{}`. */
export function mergeViewedImages(existing: ViewedImages | null | undefined, update: ViewedImages | null | undefined): ViewedImages {
  if (update == null) return existing ?? {};
  if (Object.keys(update).length === 0) return {};
  return { ...(existing ?? {}), ...update };
}
