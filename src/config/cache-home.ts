// Where deerflow keeps what it can always rebuild (V8's compiled code of its bundles, src/cli/code-cache.ts): the
// user's cache directory, not a data home. DEERFLOW_CACHE_DIR, else $XDG_CACHE_HOME/deerflow, else
// ~/.cache/deerflow. One per user, shared by every data home: a fresh DEERFLOW_HOME (a test, a CI job, a second
// project) starts from code compiled by another instead of compiling ~2.7 MB again. The cache names carry a hash of
// the bundle and the node that wrote them, so two versions of deerflow share the directory without reading each
// other's code. Read from the environment only, never from a .deerflowrc: a repository must not choose which compiled
// code deerflow loads.
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** The cache directory for this environment (never created here: code-cache.ts makes it private when it writes). */
export function cacheHomeOf(env: NodeJS.ProcessEnv = process.env): string {
  // Absolute only, as $XDG_CACHE_HOME: a relative one would put the cache, and the key that signs it, in whatever
  // folder deerflow starts in (a repository's own `.dfcache`, where its scripts can rewrite it: the eleventh pass).
  const named = env.DEERFLOW_CACHE_DIR?.trim();
  if (named && isAbsolute(named)) return named;
  // The XDG spec: a relative $XDG_CACHE_HOME is invalid and ignored.
  const xdg = env.XDG_CACHE_HOME?.trim();
  if (xdg && isAbsolute(xdg)) return join(xdg, "deerflow");
  return join(env.HOME || homedir(), ".cache", "deerflow");
}
