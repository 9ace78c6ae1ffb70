import { describe, expect, it } from "vitest";
import { titleCommand } from "../../../src/tui/commands/title-command.js";
import { slashContext } from "./slash-context.js";

describe("/title", () => {
  it("without text says how to use it and renames nothing", () => {
    const r = slashContext("");
    titleCommand.run(r.ctx);
    expect(r.notices).toEqual([["info", "Usage: /title <text>"]]);
    expect(r.tasks).toEqual([]);
  });

  it("is refused while a request works (the input keeps the text)", () => {
    const r = slashContext("Parser work", { busy: true });
    titleCommand.run(r.ctx);
    expect(r.refused).toEqual(["renaming the thread"]);
  });
});
