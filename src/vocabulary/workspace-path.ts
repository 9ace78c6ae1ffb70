// The model's view of the thread's files (/mnt/user-data/{workspace,uploads,outputs}) and the user's: what a person
// reads (tool cards, approval prompts, the edit diff in stream-json) names workspace files relative to the
// workspace — `src/app.ts`, a patch `git apply` takes in the repository — while the model keeps its virtual paths.
export const VIRTUAL_ROOT = "/mnt/user-data";
export const VIRTUAL_WORKSPACE = `${VIRTUAL_ROOT}/workspace`;

/** A virtual workspace path as the user reads it: relative to the workspace ("." for the workspace itself); any
 * other path (uploads, outputs, an already relative one) as it is. */
export function userPath(path: string): string {
  if (path === VIRTUAL_WORKSPACE || path === `${VIRTUAL_WORKSPACE}/`) return ".";
  return path.startsWith(`${VIRTUAL_WORKSPACE}/`) ? path.slice(VIRTUAL_WORKSPACE.length + 1) : path;
}
