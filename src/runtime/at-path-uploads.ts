// `@path` in a prompt attaches that file (headless and TUI alike).
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";

/** `@path` tokens in a prompt that name existing files are attached as uploads (other `@words` are left alone). */
export function atPathUploads(prompt: string, cwd: string): string[] {
  const out: string[] = [];
  for (const m of prompt.matchAll(/(?:^|\s)@([^\s]+)/g)) {
    const p = resolve(cwd, m[1]!);
    if (existsSync(p) && statSync(p).isFile()) out.push(p);
  }
  return out;
}
