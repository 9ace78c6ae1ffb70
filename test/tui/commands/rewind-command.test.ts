import { describe, expect, it } from "vitest";
import { rewindCommand } from "../../../src/tui/commands/rewind-command.js";
import { slashContext } from "./slash-context.js";

describe("/rewind", () => {
  it("words it does not understand get the usage line and rewind nothing", async () => {
    for (const args of ["two", "2 everything", "-1"]) {
      const r = slashContext(args);
      rewindCommand.run(r.ctx);
      await Promise.all(r.tasks);
      expect(r.notices, args).toEqual([["info", "Usage: /rewind (list the runs), /rewind <n> [files|conversation] (back to before the nth latest run), /rewind undo (put the last rewind back)"]]);
    }
  });

  it("is refused while a request works", () => {
    const r = slashContext("1", { busy: true });
    rewindCommand.run(r.ctx);
    expect(r.refused).toEqual(["rewinding"]);
  });
});
