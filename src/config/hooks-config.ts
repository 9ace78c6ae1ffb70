// `.deerflowrc` `hooks`: Claude Code's shape, so a user's settings block works when copied —
//   { "PreToolUse": [ { "matcher": "bash", "hooks": [ { "type": "command", "command": "./check.sh", "timeout": 30 } ] } ] }
// Resolved into one flat list, the user's file first, then the project's (both run; a project's only once trusted:
// trust-keys.ts classes the whole key as needing trust).
import { z } from "zod";
import { HOOK_EVENTS, type HookEvent } from "../vocabulary/hook-events.js";

/** Seconds a hook may run when its entry names no timeout (Claude Code's default). */
export const DEFAULT_HOOK_TIMEOUT_S = 60;

const hookCommandSchema = z.strictObject({
  type: z.literal("command", 'only "command" hooks exist'),
  command: z.string().min(1, "the shell command to run"),
  /** Seconds before the hook's process group is killed (default 60). */
  timeout: z.number().positive().max(3600).optional(),
});

const hookMatcherSchema = z.strictObject({
  /** A regular expression over tool names (PreToolUse, PostToolUse); empty or absent: every tool. */
  matcher: z
    .string()
    .optional()
    .refine((m) => m === undefined || validRegex(m), 'a regular expression over tool names, e.g. "bash" or "write_file|str_replace"'),
  hooks: z.array(hookCommandSchema).min(1),
});

export const hooksConfigSchema = z.partialRecord(z.enum(HOOK_EVENTS), z.array(hookMatcherSchema));
export type HooksConfig = z.infer<typeof hooksConfigSchema>;

export interface ResolvedHook {
  event: HookEvent;
  /** As written ("" matches every tool). */
  matcher: string;
  command: string;
  timeoutSeconds: number;
  /** The .deerflowrc it came from (doctor and /hooks say it). */
  file: string;
}

function validRegex(m: string): boolean {
  try {
    new RegExp(m);
    return true;
  } catch {
    return false;
  }
}

/** One file's `hooks` as a flat list, in the file's order. */
export function flattenHooks(hooks: HooksConfig | undefined, file: string): ResolvedHook[] {
  const out: ResolvedHook[] = [];
  for (const event of HOOK_EVENTS) {
    for (const group of hooks?.[event] ?? []) {
      for (const h of group.hooks) out.push({ event, matcher: group.matcher ?? "", command: h.command, timeoutSeconds: h.timeout ?? DEFAULT_HOOK_TIMEOUT_S, file });
    }
  }
  return out;
}

/** Whether a hook's matcher selects this tool: anchored, case-insensitive ("Bash" selects bash); "" and "*" select all. */
export function matchesTool(matcher: string, tool: string): boolean {
  if (matcher === "" || matcher === "*") return true;
  return new RegExp(`^(?:${matcher})$`, "i").test(tool);
}
