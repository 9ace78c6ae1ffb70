// The registry of slash commands, in menu order: the `/` menu, /help and the controller's dispatch all read it.
// One file per command (`*-command.ts`); adding a command is adding its file and its line here.
import { clearCommand } from "./clear-command.js";
import { compactCommand } from "./compact-command.js";
import { exitCommand } from "./exit-command.js";
import { exportCommand } from "./export-command.js";
import { goalCommand } from "./goal-command.js";
import { helpCommand } from "./help-command.js";
import { hooksCommand } from "./hooks-command.js";
import { mcpCommand } from "./mcp-command.js";
import { memoryCommand } from "./memory-command.js";
import { modelCommand } from "./model-command.js";
import { resumeCommand } from "./resume-command.js";
import { rewindCommand } from "./rewind-command.js";
import type { SlashCommand } from "./types.js";
import { skillsCommand } from "./skills-command.js";
import { threadsCommand } from "./threads-command.js";
import { titleCommand } from "./title-command.js";
import { todosCommand } from "./todos-command.js";

export type { SlashCommand, SlashContext } from "./types.js";

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  helpCommand,
  goalCommand,
  todosCommand,
  threadsCommand,
  resumeCommand,
  titleCommand,
  compactCommand,
  rewindCommand,
  clearCommand,
  modelCommand,
  mcpCommand,
  memoryCommand,
  skillsCommand,
  hooksCommand,
  exportCommand,
  exitCommand,
];

/** Other names a command answers to. */
const ALIASES: Record<string, string> = { quit: "exit" };

export function parseSlash(text: string): { name: string; args: string } | null {
  const m = /^\/(\S+)\s*([\s\S]*)$/.exec(text.trim());
  return m ? { name: m[1]!.toLowerCase(), args: m[2]!.trim() } : null;
}

export function findSlash(name: string): SlashCommand | undefined {
  const wanted = ALIASES[name] ?? name;
  return SLASH_COMMANDS.find((c) => c.name === wanted);
}

export function helpCommands(): { keys: string; description: string }[] {
  return [
    ...SLASH_COMMANDS.map((c) => ({ keys: `/${c.name}${c.args ? ` ${c.args}` : ""}`, description: c.description })),
    { keys: "!<command>", description: "run a shell command in the thread's workspace; its output joins the conversation" },
    { keys: "@<path>", description: "attach a file: its contents go with the message (@ then tab completes paths)" },
  ];
}
