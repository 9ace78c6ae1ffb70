// Loads the Markdown libraries after the first frame (start.tsx starts it with the runtime). Until they are here —
// or if they fail to load — answers are shown as plain text, never blocked.
import type * as Lib from "./lib.js";

let lib: typeof Lib | undefined;
let loading: Promise<void> | undefined;

export function loadMarkdown(): Promise<void> {
  loading ??= import("./lib.js").then(
    (m) => {
      lib = m;
    },
    () => undefined,
  );
  return loading;
}

/** The libraries, once loaded. */
export function markdownLib(): typeof Lib | undefined {
  return lib;
}
