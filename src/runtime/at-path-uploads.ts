// `@path` in a prompt attaches that file (headless and TUI alike).
// `@~/x` means the home directory as a shell would read it, so a secret named that way is found (and refused by
// openThread) instead of silently missed.
import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** `@path` tokens in a prompt that name existing files are attached as uploads (other `@words` are left alone). */
export function atPathUploads(prompt: string, cwd: string): string[] {
  const out: string[] = [];
  for (const m of prompt.matchAll(/(?:^|\s)@([^\s]+)/g)) {
    const word = m[1]!;
    const p = word === "~" || word.startsWith("~/") ? join(process.env.HOME ?? homedir(), word.slice(1)) : resolve(cwd, word);
    if (existsSync(p) && statSync(p).isFile()) out.push(p);
  }
  return out;
}
