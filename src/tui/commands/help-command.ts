// `/help`: the commands and the keys, as one transcript item.
import { helpKeys } from "../keys/keybindings.js";
import type { SlashCommand } from "./types.js";

export const helpCommand: SlashCommand = {
  name: "help",
  description: "keys and commands",
  run: (ctx) => ctx.store.dispatch({ type: "ui.item", item: { kind: "help", commands: ctx.helpRows(), keys: helpKeys() } }),
};
