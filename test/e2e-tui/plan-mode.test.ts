// End to end in a real terminal: Shift+Tab into plan mode, a write refused while planning, the plan shown as
// Markdown in its approval card, and "Yes, and auto-edit" switching the mode so the agent writes in the same run.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import type { RecordedRequest } from "../support/openai-server.js";
import { statusLine, submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

const call = (id: string, name: string, args: Record<string, unknown>) => ({ toolCalls: [{ id, name, args }] });
const toolResult = (req: RecordedRequest, id: string) =>
  (req.body.messages as { role: string; tool_call_id?: string; content: string }[]).find((m) => m.role === "tool" && m.tool_call_id === id)?.content;

describe("plan mode in the terminal", () => {
  it("shift+tab into plan; a write is refused; the plan card shows the Markdown plan; approving with auto-edit writes", async () => {
    const sb = e2e.sandbox();
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    await t.press("shift-tab");
    await t.waitFor(() => statusLine(t).includes("approval: auto-edit"), { where: "screen" });
    await t.press("shift-tab");
    await t.waitFor(() => statusLine(t).includes("approval: plan (shift+tab)"), { where: "screen" });

    e2e.server.push(
      call("w1", "write_file", { path: "CHANGELOG.md", content: "too early" }),
      call("p1", "exit_plan_mode", { plan: "# Release plan\n\n- **Add** `CHANGELOG.md` with the 2.0 entry\n- Run the tests" }),
    );
    await submit(t, "release 2.0");
    await t.waitFor("Approve this plan?", { where: "screen" });
    const card = t.screen();
    expect(card).toContain("Release plan");
    expect(card).toContain("Add CHANGELOG.md with the 2.0 entry");
    // Rendered, not shown as typed.
    expect(card).not.toContain("**Add**");
    expect(card).toMatch(/❯ 1\. Yes, and ask before edits/);
    expect(card).toContain("2. Yes, and auto-edit");
    expect(card).toContain("3. No, keep planning (say what to change)");
    expect(toolResult(e2e.server.requests[1]!, "w1")).toMatch(/^plan mode: write_file is not run/);
    expect(existsSync(join(sb.cwd, "CHANGELOG.md"))).toBe(false);

    e2e.server.push(call("w2", "write_file", { path: "CHANGELOG.md", content: "2.0" }), { content: "Released 2.0." });
    await t.type("2");
    await t.waitFor("Released 2.0.");
    await t.waitForGone("Approve this plan?");
    await t.waitFor(() => statusLine(t).includes("approval: auto-edit"), { where: "screen" });
    expect(t.scrollback()).toContain("Plan approved: approval mode auto-edit.");
    // The card is gone; the plan stays in the transcript, above the notice.
    const after = t.screen();
    expect(after).toContain("Add CHANGELOG.md with the 2.0 entry");
    expect(after.indexOf("Add CHANGELOG.md with the 2.0 entry")).toBeLessThan(after.indexOf("Plan approved"));
    expect(readFileSync(join(sb.cwd, "CHANGELOG.md"), "utf8")).toBe("2.0");
    // auto-edit: the write did not ask.
    expect(t.scrollback()).not.toContain("Create this file?");
    expect(toolResult(e2e.server.requests[2]!, "p1")).toContain("plan mode is over (the mode is now auto-edit)");
  }, 90_000);
});
