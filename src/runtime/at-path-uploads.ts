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
import { dirname, join, relative, resolve, sep } from "node:path";
import { UsageError } from "../errors.js";
import { hostSecretReason } from "../sandbox/host-secrets.js";

const inside = (p: string, dir: string) => {
  const rel = relative(dir, p);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
};

/** The nearest folder at or above `cwd` holding `.git` (a repository or worktree), else `cwd`. */
function repositoryOf(cwd: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dir === dirname(dir)) return resolve(cwd);
  }
}

/** Refuses (one line) a file named inside `cwd`'s repository whose real path leads out of it through a link. */
export function refuseLinkOut(word: string, path: string, cwd: string): void {
  const scope = repositoryOf(cwd);
  const realScope = realpathSync(scope);
  if (!inside(resolve(path), scope) && !inside(resolve(path), realScope)) return; // named outside on purpose
  const real = realpathSync(path);
  if (inside(real, realScope)) return;
  // A secret is refused by openThread with the reason it is one (~/.ssh…): the more useful line for the same refusal.
  const userHome = process.env.HOME ?? homedir();
  if (hostSecretReason(real, { userHome, dataDir: join(userHome, ".deerflow") })) return;
  throw new UsageError(`Refusing to attach ${word}: it is a symbolic link (or inside one) that leads out of ${scope} to ${real}.`, `Name ${real} itself if you mean to send that file.`);
}

/** `/proc`, `/sys` and `/dev` hold the process's own state, not files to send: `@/proc/self/environ` copied deerflow's
 *  environment, its API key included, into the uploads (the thirteenth pass). */
function refuseKernelFile(word: string, path: string): void {
  const real = realpathSync(path);
  if (/^\/(?:proc|sys|dev)(?:\/|$)/.test(real))
    throw new UsageError(`Refusing to attach ${word}: ${real} is the system's or a process's state, not a file to send.`, "Copy what you mean to send into a file first.");
}

/** `--upload` files, each checked as refuseLinkOut says (a missing one is left to openThread's message). */
export function checkedUploads(files: readonly string[], cwd: string): string[] {
  for (const f of files) {
    if (!existsSync(f)) continue;
    refuseLinkOut(f, resolve(cwd, f), cwd);
    refuseKernelFile(f, resolve(cwd, f));
  }
  return [...files];
}

/** `@path` tokens in a prompt that name existing files are attached as uploads (other `@words` are left alone). */
export function atPathUploads(prompt: string, cwd: string): string[] {
  const out: string[] = [];
  for (const m of prompt.matchAll(/(?:^|\s)@([^\s]+)/g)) {
    const word = m[1]!;
    const p = word === "~" || word.startsWith("~/") ? join(process.env.HOME ?? homedir(), word.slice(1)) : resolve(cwd, word);
    if (!existsSync(p) || !statSync(p).isFile()) continue;
    refuseLinkOut(`@${word}`, p, cwd);
    refuseKernelFile(`@${word}`, p);
    out.push(p);
  }
  return out;
}
