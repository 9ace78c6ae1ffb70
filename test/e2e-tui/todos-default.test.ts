// End to end in a real terminal: without --plan the model has write_todos, and its list shows above the input.
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { statusLine, submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

describe("todos by default", () => {
  it("a chat without --plan shows the todo panel when the model writes a list", async () => {
    const sb = e2e.sandbox();
    e2e.server.push(
      {
        toolCalls: [
          {
            id: "t1",
            name: "write_todos",
            args: {
              todos: [
                { content: "find the failing test", status: "in_progress" },
                { content: "fix it", status: "pending" },
              ],
            },
          },
        ],
      },
      { content: "Working through the list." },
    );
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    expect(statusLine(t)).not.toMatch(/ · plan( ·|$)/);
    await submit(t, "fix the tests");
    await t.waitFor("Working through the list.");
    await t.waitFor("Todos 0/2 done", { where: "screen" });
    expect(t.screen()).toContain("◐ find the failing test");
    expect(t.screen()).toContain("○ fix it");
    const tools = (e2e.server.requests[0]!.body.tools as { function: { name: string; description: string } }[]).map((x) => x.function);
    expect(tools.find((f) => f.name === "write_todos")?.description).not.toMatch(/^Plan mode/);
  }, 60_000);
});
