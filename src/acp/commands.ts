// The custom commands (commands/) and installed skills as ACP commands (`available_commands_update`): an editor offers
// them after "/"; a prompt that starts with "/<name>" runs the command or activates the skill as `deerflow run` and the
// chat do (a skill's name wins over a command's, as there: the command of that name is not offered). The TUI's own
// slash commands (/rewind, /model…) act on the terminal's screen and are not offered.
import type { AvailableCommand, SessionUpdate } from "@agentclientprotocol/sdk";
import type { CommandCatalog } from "../commands/catalog.js";
import { type SkillCatalog, skillInvocation } from "../skills/catalog.js";
import { oneLine } from "../vocabulary/terminal-text.js";

export function availableCommandsOf(skills: SkillCatalog, commands: CommandCatalog): SessionUpdate {
  const skillNames = new Set(skills.skills.map((s) => s.name));
  const own = commands.commands.filter((c) => !skillNames.has(c.name)).map((c) => ({ name: c.name, description: oneLine(c.description), input: { hint: oneLine(c.argumentHint ?? "arguments") } }));
  const skillCommands = skills.skills.map((s) => ({ name: s.name, description: s.description, input: { hint: "what to do with it" } }));
  const availableCommands: AvailableCommand[] = [...own, ...skillCommands];
  return { sessionUpdate: "available_commands_update", availableCommands };
}

/** The skill a prompt invokes ("/<name> …"), if it names an installed one. */
export function invokedSkill(prompt: string, catalog: SkillCatalog): string | undefined {
  return prompt.trimStart().startsWith("/") ? skillInvocation(prompt, catalog)?.name : undefined;
}
