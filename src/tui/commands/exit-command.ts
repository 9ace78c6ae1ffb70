// `/exit` (and `/quit`): leave.
import type { SlashCommand } from "./types.js";

export const exitCommand: SlashCommand = {
  name: "exit",
  description: "leave (also ctrl+d, or ctrl+c twice)",
  run: (ctx) => ctx.exit(),
};
