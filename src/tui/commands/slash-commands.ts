// The slash commands the chat understands (one registry: /help lists it, the controller runs it).
export interface SlashCommand {
  name: string;
  args?: string;
  description: string;
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: "help", description: "keys and commands" },
  { name: "goal", args: "[text|clear]", description: "work toward a goal until it is met; without text: show it" },
  { name: "todos", description: "show the full todo list and the agent's working notes" },
  { name: "threads", description: "list saved threads" },
  { name: "resume", args: "<id>", description: "switch to a saved thread" },
  { name: "title", args: "<text>", description: "rename this thread" },
  { name: "compact", args: "[focus]", description: "summarize and archive older turns now (optionally: what to keep in focus)" },
  { name: "rewind", args: "[n] [files|conversation] | undo", description: "list this thread's runs; with n: back to before the nth latest (files and conversation, or one of them); undo: put the last rewind back" },
  { name: "clear", description: "start a new thread (the current one stays saved)" },
  { name: "model", args: "[name]", description: "pick a model (configured, the endpoint's, local servers'), or switch to one by name" },
  { name: "mcp", description: "MCP servers: status and tools" },
  { name: "memory", args: "[add|edit <n>|forget <n…>|clear|pending|approve <n…|all>|reject <n…|all>]", description: "show, add, edit or forget remembered facts; review learned ones" },
  { name: "skills", description: "list the installed skills (activate one with /<skill> [request])" },
  { name: "exit", description: "leave (also ctrl+d, or ctrl+c twice)" },
];

export function parseSlash(text: string): { name: string; args: string } | null {
  const m = /^\/(\S+)\s*([\s\S]*)$/.exec(text.trim());
  return m ? { name: m[1]!.toLowerCase(), args: m[2]!.trim() } : null;
}

export function findSlash(name: string): SlashCommand | undefined {
  return SLASH_COMMANDS.find((c) => c.name === name || (name === "quit" && c.name === "exit"));
}

export function helpCommands(): { keys: string; description: string }[] {
  return [
    ...SLASH_COMMANDS.map((c) => ({ keys: `/${c.name}${c.args ? ` ${c.args}` : ""}`, description: c.description })),
    { keys: "!<command>", description: "run a shell command in the thread's workspace; its output joins the conversation" },
    { keys: "@<path>", description: "attach a file: its contents go with the message (@ then tab completes paths)" },
  ];
}
