// Hooks as a test configures them: real sh scripts in the user's hooks folder, listed in the user's ~/.deerflowrc.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "./cli.js";
import type { RecordedRequest } from "./openai-server.js";
import { isSummaryRequest, messageText } from "./requests.js";

/** Writes `name`.sh in the user's hooks folder; returns the command that runs it. */
export function hookScript(sb: Sandbox, name: string, body: string): string {
  const dir = join(sb.userHome, "hooks");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.sh`), `#!/bin/sh\n${body}\n`);
  return `sh ${join(dir, `${name}.sh`)}`;
}

/** The user's ~/.deerflowrc with these hooks (and `extra` keys). */
export function userHooks(sb: Sandbox, hooks: Record<string, unknown>, extra: Record<string, unknown> = {}): void {
  writeFileSync(join(sb.userHome, ".deerflowrc"), JSON.stringify({ hooks, ...extra }));
}

/** A side call (the title's, the summary's), not the agent's. */
export const isSideRequest = (r: RecordedRequest): boolean => isSummaryRequest(r) || messageText(r.body.messages?.[0]).startsWith("Write a short title");
