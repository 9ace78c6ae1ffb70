import { describe, expect, it } from "vitest";
import { exitCommand } from "../../../src/tui/commands/exit-command.js";
import { findSlash } from "../../../src/tui/commands/slash-commands.js";
import { slashContext } from "./slash-context.js";

describe("/exit", () => {
  it("leaves, also as /quit", () => {
    const r = slashContext("");
    findSlash("quit")!.run(r.ctx);
    exitCommand.run(r.ctx);
    expect(r.exits).toBe(2);
  });
});
