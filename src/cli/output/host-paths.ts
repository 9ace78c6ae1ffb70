// Text mode names the workspace's files by their real path: the model's /mnt/user-data/workspace view means nothing
// in the user's terminal (stream-json and json keep the model's arguments and words as they were; their edit diffs
// are relative to the workspace). The mapping is the sandbox's own (sandbox/virtual-paths.ts).
import type { ThreadPaths } from "../../sandbox/provider.js";
import { toHostPaths } from "../../sandbox/virtual-paths.js";

/** `text` with the virtual workspace paths in it written as paths under `workspace` (the run's host directory). */
export function withHostPaths(text: string, workspace: string | undefined): string {
  return workspace ? toHostPaths(text, { workspace_path: workspace } as ThreadPaths) : text;
}
