import { describe, expect, it } from "vitest";
import { resumeCommand } from "../../../src/tui/commands/resume-command.js";
import { slashContext } from "./slash-context.js";

describe("/resume", () => {
  it("without an id points at /threads; while a request works it is refused", () => {
    const r = slashContext("");
    resumeCommand.run(r.ctx);
    expect(r.notices).toEqual([["info", "Usage: /resume <thread id> (see /threads)"]]);

    const busy = slashContext("thread-1", { busy: true });
    resumeCommand.run(busy.ctx);
    expect(busy.refused).toEqual(["switching threads"]);
  });
});
