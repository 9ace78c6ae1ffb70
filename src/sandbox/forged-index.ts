// An index that lists a path git never adds (gitlink-walk.ts finds them: `../.bashrc`, `.git/hooks/pre-commit`): the
// user's `git checkout -- .` would write it outside the work tree or into git's own folder (the thirty-third pass's
// A33a-4). git has no safe way to take one entry out of such an index, so the index is moved aside whole; `git reset`
// makes a new one from HEAD, and the moved file keeps what was staged.
import { moveAsideWithin } from "./repair-within.js";

/**
 * A path git refuses to add (verify_path): absolute, or with an empty, `.`, `..` or `.git` part. git does not check the
 * index it reads, so an entry rewritten to `../.bashrc` in the file had the user's `git checkout -- .` write the
 * user's ~/.bashrc, and `.git/hooks/pre-commit` plant a hook (the thirty-third pass's A33a-4).
 */
export const forgedPath = (p: string) => p.startsWith("/") || p.split("/").some((c) => c === "" || c === "." || c === ".." || c.toLowerCase() === ".git");

/** Moves each forged index aside (`roots`: where deerflow may repair); the lines saying so. */
export function moveAsideForgedIndexes(forged: readonly { index: string; path: string }[], roots: readonly string[]): string[] {
  return forged.map((f) => {
    try {
      return `deerflow moved ${f.index} to ${moveAsideWithin(f.index, roots)}: it lists ${f.path}, a path git never adds, which your git checkout -- . would write outside the work tree; \`git reset\` makes a new index.`;
    } catch {
      return `deerflow could not move ${f.index} aside: it lists ${f.path}; run \`rm ${f.index} && git reset\` before any git checkout.`;
    }
  });
}
