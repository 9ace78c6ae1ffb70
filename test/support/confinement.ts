// Shared by the confinement suites: the two modes (bwrap, and bwrap hidden from PATH), an attack tally printed for
// the issue's note, and the tool results a scripted attacker got back.
import { existsSync, lstatSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll } from "vitest";
import type { Sandbox } from "./cli.js";
import type { RecordedRequest } from "./openai-server.js";

export const HAS_BWRAP = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].some((p) => existsSync(p));

export type Mode = "bwrap" | "fallback";

/** The flag `run --yes` needs without bubblewrap (sandbox/unconfined.ts), for a test run in `mode`. */
export function unconfinedFlag(mode: Mode): string[] {
  return mode === "fallback" ? ["--dangerously-run-unconfined"] : [];
}

/**
 * For tests of what happens to the commands (processes, paths), not of approvals: without bubblewrap every command not
 * known to only read asks (sandbox/shell-unconfined.ts), so a headless run there approves them explicitly.
 */
export function approveUnconfined(mode: Mode): string[] {
  return mode === "fallback" ? ["--yes", "--dangerously-run-unconfined"] : [];
}

/** Counts attacks per mode and prints the totals after the file's tests: `count(mode, attack, refused)`. */
export function attackTally(label: string): (mode: Mode, attack: string, refused: boolean) => void {
  const tally: Record<Mode, { tried: number; refused: number; notRefused: string[] }> = {
    bwrap: { tried: 0, refused: 0, notRefused: [] },
    fallback: { tried: 0, refused: 0, notRefused: [] },
  };
  afterAll(() => {
    for (const mode of ["bwrap", "fallback"] as const) {
      const t = tally[mode];
      if (t.tried) console.log(`${label} ${mode}: ${t.refused}/${t.tried} attacks refused${t.notRefused.length ? `; not refused: ${t.notRefused.join(", ")}` : ""}`);
    }
  });
  return (mode, attack, refused) => {
    tally[mode].tried++;
    if (refused) tally[mode].refused++;
    else tally[mode].notRefused.push(attack);
  };
}

/** Tool results in a recorded model request, by tool call id. */
export function toolResults(req: RecordedRequest): Record<string, string> {
  return Object.fromEntries(
    (req.body.messages as { role: string; tool_call_id?: string; content: unknown }[])
      .filter((m) => m.role === "tool")
      .map((m) => [m.tool_call_id!, typeof m.content === "string" ? m.content : JSON.stringify(m.content)]),
  );
}

/** A PATH with every program of /usr/bin and /usr/local/bin except bwrap. */
export function pathWithoutBwrap(sb: Sandbox): string {
  return pathWithout(join(sb.userHome, "..", "nobwrap-bin"), ["bwrap"]);
}

/** A PATH (the directory `dir`, filled with links) with every program of /usr/bin and /usr/local/bin except `names`. */
export function pathWithout(dir: string, names: string[]): string {
  mkdirSync(dir, { recursive: true });
  for (const src of ["/usr/local/bin", "/usr/bin"]) {
    if (!existsSync(src)) continue;
    for (const name of readdirSync(src)) {
      if (names.includes(name) || existsSync(join(dir, name))) continue;
      try {
        symlinkSync(join(src, name), join(dir, name));
      } catch {
        /* a name twice */
      }
    }
  }
  return dir;
}

/** Whether `p` is a symbolic link itself (never followed); false when nothing is there. */
export const isLink = (p: string) => lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
