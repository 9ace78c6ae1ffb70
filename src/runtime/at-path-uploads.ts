// `@path` in a prompt attaches that file (headless and TUI alike).
// `@~/x` means the home directory as a shell would read it, so a secret named that way is found (and refused by
// openThread) instead of silently missed.
// A word that names a place inside the working directory must stay there: a repository can ship
// `docs/guide.md -> ../../.someapp/token`, and `summarize @docs/guide.md` sent the token (the tenth adversarial pass).
// The user named a repository file, not that one; naming the target itself (`@~/.someapp/token`) is their choice.
// "Inside" means the repository the working directory belongs to (its nearest folder holding `.git`), so
// `@../docs/guide.md` from `src/` is judged as a repository file too (the eleventh pass's M4).
import { existsSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { UsageError } from "../errors.js";
import { hostSecretReason } from "../sandbox/host-secrets.js";
import { isInside } from "../sandbox/paths.js";
import { findRepoRoot } from "../memory/project.js";

/**
 * The real path each attachment was checked as (path → real path), kept for the copy: openThread copies only a file
 * whose opened descriptor is that one, so a link swapped in after the checks is refused, not sent (the nineteenth
 * pass's UP1: a background job swapping a workspace file for a link to a host token got the token attached).
 */
export type CheckedAs = Record<string, string>;

/** Refuses (one line) a file named inside `cwd`'s repository whose real path leads out of it through a link. */
export function refuseLinkOut(word: string, path: string, cwd: string, real = realpathSync(path)): void {
  const scope = findRepoRoot(cwd) ?? resolve(cwd);
  const realScope = realpathSync(scope);
  if (!isInside(resolve(path), scope) && !isInside(resolve(path), realScope)) return; // named outside on purpose
  if (isInside(real, realScope)) return;
  // A secret is refused by openThread with the reason it is one (~/.ssh…): the more useful line for the same refusal.
  const userHome = process.env.HOME ?? homedir();
  if (hostSecretReason(real, { userHome, dataDir: join(userHome, ".deerflow") })) return;
  throw new UsageError(`Refusing to attach ${word}: it is a symbolic link (or inside one) that leads out of ${scope} to ${real}.`, `Name ${real} itself if you mean to send that file.`);
}

/** `/proc`, `/sys` and `/dev` hold the process's own state, not files to send: `@/proc/self/environ` copied deerflow's
 *  environment, its API key included, into the uploads (the thirteenth pass). */
function refuseKernelFile(word: string, real: string): void {
  if (/^\/(?:proc|sys|dev)(?:\/|$)/.test(real))
    throw new UsageError(`Refusing to attach ${word}: ${real} is the system's or a process's state, not a file to send.`, "Copy what you mean to send into a file first.");
}

/** `--upload` files, each checked as refuseLinkOut says (a missing one is left to openThread's message). */
export function checkedUploads(files: readonly string[], cwd: string, checkedAs: CheckedAs = {}): string[] {
  for (const f of files) {
    if (!existsSync(f)) continue;
    const real = realpathSync(resolve(cwd, f));
    refuseLinkOut(f, resolve(cwd, f), cwd, real);
    refuseKernelFile(f, real);
    checkedAs[f] = real;
  }
  return [...files];
}

/** The `@path` words of `text` that name existing files, each with the path it names (`@~/x` in the home directory). */
export function atPathTargets(text: string, cwd: string): { word: string; path: string }[] {
  const out: { word: string; path: string }[] = [];
  for (const m of text.matchAll(/(?:^|\s)@([^\s]+)/g)) {
    const word = m[1]!;
    const path = word === "~" || word.startsWith("~/") ? join(process.env.HOME ?? homedir(), word.slice(1)) : resolve(cwd, word);
    if (existsSync(path) && statSync(path).isFile()) out.push({ word, path });
  }
  return out;
}

/** `@path` tokens in a prompt that name existing files are attached as uploads (other `@words` are left alone). */
export function atPathUploads(prompt: string, cwd: string, checkedAs: CheckedAs = {}): string[] {
  return atPathTargets(prompt, cwd).map(({ word, path }) => {
    const real = realpathSync(path);
    refuseLinkOut(`@${word}`, path, cwd, real);
    refuseKernelFile(`@${word}`, real);
    checkedAs[path] = real;
    return path;
  });
}
