import { realpathSync } from "node:fs";

/** `p` with its links resolved, or `p` itself when it does not exist (yet) or cannot be resolved. */
export function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
