// The custom commands (`.deerflow/commands/*.md`, commands/catalog.ts) as the chat shows them: `/` menu rows, /help
// rows with their source, and the name check of the dispatch. A built-in command or a skill of the same name wins
// (as in `deerflow run`), so a repository's file cannot take over /help or a skill the user installed.
import type { ChatSession, CustomCommand } from "../../runtime/chat-session.js";
import type { CommandSpec } from "../input/completion.js";
import { findSlash } from "./slash-commands.js";

/** The session's commands that a typed `/name` reaches. */
export function reachableCommands(session: ChatSession | undefined): CustomCommand[] {
  if (!session) return [];
  const skills = new Set(session.skills.skills.map((k) => k.name));
  return session.commands.commands.filter((c) => !findSlash(c.name) && !skills.has(c.name));
}

export function customCommandNamed(session: ChatSession, name: string): CustomCommand | undefined {
  return reachableCommands(session).find((c) => c.name === name);
}

/** The `/` menu's rows for them. */
export function customCommandSpecs(session: ChatSession | undefined): CommandSpec[] {
  return reachableCommands(session).map((c) => ({ name: c.name, args: c.argumentHint ?? "[args]", description: `${c.description} (${c.scope})` }));
}

/** /help's rows for them: each with where it comes from. */
export function customHelpRows(session: ChatSession): { keys: string; description: string }[] {
  return reachableCommands(session).map((c) => ({ keys: `/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""}`, description: `${c.description} — ${c.scope}: ${c.file}` }));
}
