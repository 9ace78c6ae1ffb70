// The names the chat answers itself (its slash commands and their aliases): a custom command or a skill never takes
// one, in the chat, in `deerflow run "/name"` or over ACP. Here, below every layer, so the catalog and the CLI need
// not load the TUI's registry to know them; a test holds the registry (tui/commands/slash-commands.ts) to this list.
export const BUILT_IN_COMMAND_NAMES: readonly string[] = [
  "help",
  "goal",
  "todos",
  "threads",
  "resume",
  "title",
  "compact",
  "rewind",
  "clear",
  "model",
  "mcp",
  "memory",
  "skills",
  "hooks",
  "export",
  "exit",
  "quit",
];

/** Whether `/name` is one the chat answers itself. */
export const isBuiltInCommand = (name: string): boolean => BUILT_IN_COMMAND_NAMES.includes(name.toLowerCase());
