// NO_COLOR must switch every colour off (read at render time), while structure and marks stay the same.
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalPrompt } from "../../../src/tui/components/ApprovalPrompt.js";
import { StatusLine } from "../../../src/tui/components/StatusLine.js";
import { TodoPanel } from "../../../src/tui/components/TodoPanel.js";
import { ToolCard } from "../../../src/tui/components/ToolCard.js";
import { TranscriptItemView } from "../../../src/tui/components/TranscriptItemView.js";
import { Box } from "ink";
import { frame, hasColorCode, usage, withColor } from "./helpers.js";

const ui = (
  <Box flexDirection="column">
    <ToolCard tool={{ id: "1", name: "bash", args: { command: "false" }, status: "error", output: "boom" }} />
    <TodoPanel
      expanded
      todos={[
        { content: "a", status: "in_progress" },
        { content: "b", status: "completed" },
      ]}
    />
    <ApprovalPrompt request={{ type: "approval.requested", id: "x", thread_id: "t", tool_call_id: "c", tool: "bash", kind: "command", command: "rm -rf x", reason: "rm" }} selected={0} queued={0} />
    <StatusLine ready status={{ model: "m", usage: usage(10), goal: null, approvalMode: "yolo" }} />
    <TranscriptItemView width={80} item={{ kind: "notice", id: "n", level: "error", text: "bad" }} />
  </Box>
);

describe("NO_COLOR", () => {
  const saved = process.env.NO_COLOR;
  afterEach(() => {
    if (saved === undefined) delete process.env.NO_COLOR;
    else process.env.NO_COLOR = saved;
  });

  it("colours appear normally (sanity check of the harness)", () => {
    delete process.env.NO_COLOR;
    withColor(() => expect(hasColorCode(frame(ui).raw)).toBe(true));
  });

  it("prints no colour codes when NO_COLOR is set, with the same text", () => {
    delete process.env.NO_COLOR;
    const coloured = withColor(() => frame(ui).text);
    process.env.NO_COLOR = "1";
    const plain = withColor(() => frame(ui));
    expect(hasColorCode(plain.raw)).toBe(false);
    expect(plain.text).toBe(coloured);
  });
});
