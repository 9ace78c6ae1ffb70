// The installed skills as ACP commands (`available_commands_update`): an editor offers them after "/", and a prompt
// that starts with "/<skill>" activates it as `deerflow run "/<skill> …"` and the chat do. The TUI's own slash
// commands (/rewind, /model…) act on the terminal's screen and are not offered.
import type { AvailableCommand, SessionUpdate } from "@agentclientprotocol/sdk";
import { type SkillCatalog, skillInvocation } from "../skills/catalog.js";

export function availableCommandsOf(catalog: SkillCatalog): SessionUpdate {
  const availableCommands: AvailableCommand[] = catalog.skills.map((s) => ({ name: s.name, description: s.description, input: { hint: "what to do with it" } }));
  return { sessionUpdate: "available_commands_update", availableCommands };
}

/** The skill a prompt invokes ("/<name> …"), if it names an installed one. */
export function invokedSkill(prompt: string, catalog: SkillCatalog): string | undefined {
  return prompt.trimStart().startsWith("/") ? skillInvocation(prompt, catalog)?.name : undefined;
}
