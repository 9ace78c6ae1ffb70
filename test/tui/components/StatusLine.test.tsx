import { describe, expect, it } from "vitest";
import { StatusLine } from "../../../src/tui/components/StatusLine.js";
import type { StatusView } from "../../../src/tui/state/types.js";
import { frame, usage, visibleWidth } from "./helpers.js";

const status = (over: Partial<StatusView> = {}): StatusView => ({
  model: "gpt-4.1",
  usage: usage(0),
  goal: null,
  approvalMode: "ask",
  ...over,
});

describe("StatusLine", () => {
  it("shows loading before the runtime is ready, and a new thread", () => {
    expect(frame(<StatusLine status={status({ model: "" })} ready={false} />).text).toBe("loading… · new thread · approval: ask (shift+tab)");
  });

  it("shows model, the whole thread id + title, tokens, goal and approval mode", () => {
    const s = status({
      threadId: "3f2a9c1d1111",
      title: "Fix the flaky test",
      usage: usage(1234),
      goal: { objective: "green CI", status: "active", continuation_count: 2 },
      approvalMode: "auto-edit",
    });
    expect(frame(<StatusLine status={s} ready />, 130).text).toBe("gpt-4.1 · 3f2a9c1d1111 Fix the flaky test · 1.2k tokens · goal: active (2 cont.) · approval: auto-edit (shift+tab)");
    expect(frame(<StatusLine status={{ ...s, approvalMode: "plan" }} ready />, 130).text).toContain("approval: plan (shift+tab)");
  });

  it("shows the context fill against the model's window: reported, estimated (~), nothing without a window", () => {
    expect(frame(<StatusLine status={status({ threadId: "t1", usage: usage(900), contextWindow: 32_768, context: { tokens: 14_090, estimated: false } })} ready />, 130).text).toContain(
      "900 tokens · ctx 43% · approval",
    );
    expect(frame(<StatusLine status={status({ contextWindow: 10_000, context: { tokens: 9_500, estimated: true } })} ready />, 130).text).toContain("ctx ~95%");
    expect(frame(<StatusLine status={status({ context: { tokens: 9_500, estimated: true } })} ready />, 130).text).not.toContain("ctx");
  });

  it.each([
    ["achieved", "goal: achieved"],
    ["needs_user_input", "goal: needs input"],
    ["not_achieved", "goal: not achieved"],
  ] as const)("goal %s", (g, words) => {
    expect(frame(<StatusLine status={status({ goal: { objective: "x", status: g, continuation_count: 0 } })} ready />).text).toContain(words);
  });

  it("stays one line at 60 columns", () => {
    const s = status({ threadId: "abc", title: "A very long thread title ".repeat(5), usage: usage(2_500_000), approvalMode: "yolo" });
    const { lines } = frame(<StatusLine status={s} ready />, 60);
    expect(lines).toHaveLength(1);
    expect(visibleWidth(lines[0]!)).toBeLessThanOrEqual(60);
    expect(lines[0]).toMatch(/…$/);
  });
});
