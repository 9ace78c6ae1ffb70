import { describe, expect, it } from "vitest";
import { ApprovalPrompt } from "../../../src/tui/components/ApprovalPrompt.js";
import type { ApprovalRequestedEvent } from "../../../src/tui/state/types.js";
import { frame, visibleWidth } from "./helpers.js";

const req = (command = "rm -rf build", over: Partial<ApprovalRequestedEvent> = {}): ApprovalRequestedEvent => ({
  type: "approval.requested",
  id: "appr_1",
  thread_id: "t1",
  tool_call_id: "c1",
  tool: "bash",
  kind: "command",
  command,
  reason: "recursive delete (rm -r)",
  ...over,
});

describe("ApprovalPrompt", () => {
  it("shows the question, the command, the reason, three options and the hint", () => {
    const { lines, text } = frame(<ApprovalPrompt request={req()} selected={0} queued={0} />);
    expect(lines[0]).toBe("Allow this command?");
    expect(text).toContain("rm -rf build");
    expect(text).toContain("why it asks: recursive delete (rm -r)");
    expect(lines.filter((l) => /^[❯ ] \d\. /.test(l))).toEqual(["❯ 1. Allow once", "  2. Allow always for this thread", "  3. Deny"]);
    expect(lines[lines.length - 1]).toBe("↑↓ select · 1-3 pick · enter confirm · esc deny");
    expect(text).not.toContain("more waiting");
  });

  it("a command that writes files asks about its edits: the command and why, the edit options, no diff", () => {
    const { lines, text } = frame(
      <ApprovalPrompt request={req("sed -i s/a/b/ app.js", { kind: "edit", reason: "writes files (ask mode asks before edits)", scope: "edits" })} selected={0} queued={0} />,
    );
    expect(lines[0]).toBe("Allow this command's edits?");
    expect(text).toContain("sed -i s/a/b/ app.js");
    expect(text).toContain("why it asks: writes files (ask mode asks before edits)");
    expect(lines.filter((l) => /^[❯ ] \d\. /.test(l))).toEqual(["❯ 1. Allow once", "  2. Allow edits for this thread", "  3. Deny"]);
  });

  it("marks the selected option", () => {
    const { lines } = frame(<ApprovalPrompt request={req()} selected={2} queued={0} />);
    expect(lines.filter((l) => l.startsWith("❯"))).toEqual(["❯ 3. Deny"]);
  });

  it("says how many more requests wait", () => {
    expect(frame(<ApprovalPrompt request={req()} selected={0} queued={1} />).lines[0]).toBe("Allow this command? (+1 more waiting)");
  });

  it("wraps a long command in full at 60 columns — never truncates what is approved", () => {
    const cmd = `rm -rf ${Array.from({ length: 20 }, (_, i) => `/var/data/dir${i}`).join(" ")} && echo done-END`;
    const { lines, text } = frame(<ApprovalPrompt request={req(cmd)} selected={0} queued={0} />, 60);
    for (const l of lines) expect(visibleWidth(l)).toBeLessThanOrEqual(60);
    const boxed = lines
      .filter((l) => l.startsWith("│"))
      .map((l) => l.slice(2, -2).trim())
      .join(" ");
    expect(boxed).toBe(cmd);
    expect(text).not.toContain("…");
  });

  it("keeps an unbroken very long token whole, across lines", () => {
    const cmd = `curl https://example.com/${"a".repeat(150)}`;
    const { lines } = frame(<ApprovalPrompt request={req(cmd)} selected={0} queued={0} />, 60);
    const boxed = lines.filter((l) => l.startsWith("│")).map((l) => l.slice(2, -2).trim());
    expect(boxed.join("")).toBe(cmd);
    expect(boxed.length).toBeGreaterThan(2);
  });
});
