import { describe, expect, it } from "vitest";
import { helpCommand } from "../../../src/tui/commands/help-command.js";
import { helpKeys } from "../../../src/tui/keys/keybindings.js";
import { slashContext } from "./slash-context.js";

describe("/help", () => {
  it("adds one help item with every command's row and the keys", () => {
    const r = slashContext("");
    helpCommand.run(r.ctx);
    const item = r.store.get().items.at(-1);
    expect(item?.kind).toBe("help");
    if (item?.kind !== "help") return;
    expect(item.commands.map((c) => c.keys)).toContain("/rewind [n] [files|conversation] | undo");
    expect(item.keys).toEqual(helpKeys());
  });
});
