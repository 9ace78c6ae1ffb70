// The slash-command registry is the one list the `/` menu, /help and the controller's dispatch read: one file per
// command (`src/tui/commands/<name>-command.ts` exporting `<name>Command`), in menu order. What each command does
// is proved through the controller with a real session (test/tui/controller.test.ts) and in the terminal
// (test/e2e-tui/*).
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SLASH_COMMANDS, findSlash, helpCommands } from "../../../src/tui/commands/slash-commands.js";
import { CompletionSource } from "../../../src/tui/completion-source.js";

const DIR = fileURLToPath(new URL("../../../src/tui/commands/", import.meta.url));

describe("slash-command registry", () => {
  it("has one file per command, each exporting <name>Command, and no command file left out of the registry", async () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith("-command.ts"));
    expect(files.map((f) => f.replace(/-command\.ts$/, "")).sort()).toEqual(SLASH_COMMANDS.map((c) => c.name).sort());
    for (const c of SLASH_COMMANDS) {
      const mod = (await import(`${DIR}${c.name}-command.ts`)) as Record<string, unknown>;
      expect(mod[`${c.name}Command`], `${c.name}-command.ts exports ${c.name}Command`).toBe(c);
    }
  });

  it("names are unique lowercase words with a description", () => {
    const names = SLASH_COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of SLASH_COMMANDS) {
      expect(c.name).toMatch(/^[a-z]+$/);
      expect(c.description.length).toBeGreaterThan(5);
    }
  });

  it("/help lists the registry in its order with each command's arguments, then ! and @", () => {
    const rows = helpCommands().map((r) => r.keys);
    expect(rows).toEqual([...SLASH_COMMANDS.map((c) => `/${c.name}${c.args ? ` ${c.args}` : ""}`), "!<command>", "@<path>"]);
    expect(helpCommands().find((r) => r.keys === "/resume <id>")?.description).toBe("switch to a saved thread");
  });

  it("the / menu lists the registry in its order and filters it by what is typed", () => {
    const menu = new CompletionSource(() => undefined);
    expect(menu.rows({ kind: "slash", query: "", start: 0, end: 1 }, 50).items.map((i) => i.value)).toEqual(SLASH_COMMANDS.map((c) => `/${c.name}`));
    expect(menu.rows({ kind: "slash", query: "rew", start: 0, end: 4 }, 50).items.map((i) => i.value)).toEqual(["/rewind"]);
  });

  it("dispatch finds commands by name, /quit as /exit, nothing else", () => {
    expect(findSlash("rewind")).toBe(SLASH_COMMANDS.find((c) => c.name === "rewind"));
    expect(findSlash("quit")?.name).toBe("exit");
    expect(findSlash("nosuch")).toBeUndefined();
  });
});
