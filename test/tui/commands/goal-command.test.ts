import { describe, expect, it } from "vitest";
import { goalCommand } from "../../../src/tui/commands/goal-command.js";
import { ChatStore } from "../../../src/tui/store.js";
import { slashContext } from "./slash-context.js";

describe("/goal", () => {
  it("without text shows the goal in the status line, or how to set one", () => {
    const none = slashContext("");
    goalCommand.run(none.ctx);
    expect(none.notices).toEqual([["info", "No goal. Set one with /goal <what must be true when done>."]]);

    const store = new ChatStore({ goal: { objective: "tests pass", status: "needs_user_input", continuation_count: 2 } });
    const shown = slashContext("", { store });
    goalCommand.run(shown.ctx);
    expect(shown.notices).toEqual([["info", "Goal (needs user input): tests pass"]]);
  });

  it("with text starts a goal turn (the text is the prompt and the goal); refused while a request works", () => {
    const r = slashContext("make the tests pass");
    goalCommand.run(r.ctx);
    expect(r.turns).toEqual([["make the tests pass", "make the tests pass"]]);

    const busy = slashContext("make the tests pass", { busy: true });
    goalCommand.run(busy.ctx);
    expect(busy.turns).toEqual([]);
    expect(busy.refused).toEqual(["starting a goal"]);
  });
});
