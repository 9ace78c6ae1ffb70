// While a prompt waits (and once a list is finished) pinned panels are one line; the status line gives up its
// low-value parts first; a compact approval prompt is exactly as tall as its layout says and shows changed lines.
import { describe, expect, it } from "vitest";
import { ApprovalPrompt } from "../../../src/tui/components/ApprovalPrompt.js";
import { approvalLayout } from "../../../src/tui/components/approval-layout.js";
import { DelegationsPanel } from "../../../src/tui/components/DelegationsPanel.js";
import { diffWindow } from "../../../src/tui/components/diff-window.js";
import { StatusLine } from "../../../src/tui/components/StatusLine.js";
import { TodoPanel } from "../../../src/tui/components/TodoPanel.js";
import type { ApprovalRequestedEvent, DelegationView, StatusView, TodoView } from "../../../src/tui/state/types.js";
import { frame, usage } from "./helpers.js";

const todo = (content: string, status: TodoView["status"]): TodoView => ({ content, status });

describe("folded panels", () => {
  it("a todo list folds to its counts and the item being worked on; a finished one says ctrl+t opens it", () => {
    const list = [todo("read", "completed"), todo("bump v5", "in_progress"), todo("test", "pending")];
    expect(frame(<TodoPanel todos={list} expanded={false} folded />, 60).lines).toEqual(["Todos 1/3 done · ◐ bump v5"]);
    const done = list.map((t) => ({ ...t, status: "completed" as const }));
    expect(frame(<TodoPanel todos={done} expanded={false} folded />, 60).lines).toEqual(["Todos 3/3 done · ctrl+t opens the list"]);
  });

  it("the subagents panel folds to its counts line", () => {
    const d = (id: string, status: string): DelegationView => ({ id, description: `job ${id}`, subagent_type: "explorer", status }) as DelegationView;
    expect(frame(<DelegationsPanel delegations={[d("a", "running"), d("b", "completed")]} now={0} folded />, 60).lines).toEqual(["Subagents (1 running, 1 done)"]);
  });
});

describe("StatusLine at 60 columns", () => {
  const status: StatusView = {
    model: "test-model",
    threadId: "9484ae120aeb",
    title: "A long thread title that fills the line",
    usage: usage(8400),
    goal: null,
    approvalMode: "auto-edit",
  };
  it("gives up the title and the shift+tab hint before it would cut the approval mode", () => {
    expect(frame(<StatusLine status={{ ...status, approvalMode: "ask" }} ready width={60} />, 60).lines).toEqual(["test-model · 9484ae120aeb · 8.4k tokens · approval: ask"]);
    // One column more than that would take: the token count goes too.
    expect(frame(<StatusLine status={status} ready width={60} />, 60).lines).toEqual(["test-model · 9484ae120aeb · approval: auto-edit"]);
  });
  it("keeps the title and the hint when they fit", () => {
    expect(frame(<StatusLine status={status} ready width={200} />, 200).text).toBe("test-model · 9484ae120aeb A long thread title that fills the line · 8.4k tokens · approval: auto-edit (shift+tab)");
  });
  it("at 40 columns the mode is still whole", () => {
    expect(frame(<StatusLine status={status} ready width={40} />, 40).lines).toEqual(["9484ae120aeb · approval: auto-edit"]);
  });
});

describe("changed lines first", () => {
  const body = [
    "@@ -1,20 +1,20 @@",
    ...Array.from({ length: 5 }, (_, i) => ` ctx ${i}`),
    ...Array.from({ length: 12 }, (_, i) => `-old ${i}`),
    ...Array.from({ length: 12 }, (_, i) => `+new ${i}`),
    " tail",
  ];
  it("a window smaller than the patch holds changed lines only, in the patch's order", () => {
    const { shown, hidden } = diffWindow(body, 10);
    expect(shown).toEqual([...Array.from({ length: 10 }, (_, i) => `-old ${i}`)]);
    expect(hidden).toBe(body.length - 10);
  });
  it("room left over goes to the hunk header, then the context nearest a change", () => {
    const { shown } = diffWindow(["@@ -1,7 +1,7 @@", " a", " b", " c", "-x", "+y", " d", " e", " f"], 5);
    expect(shown).toEqual(["@@ -1,7 +1,7 @@", " c", "-x", "+y", " d"]);
  });

  it("a compact prompt at 60 columns is exactly the rows its layout counts, and names the file and what is left out", () => {
    const patch = ["--- a/app.js", "+++ b/app.js", ...body].join("\n");
    const request: ApprovalRequestedEvent = {
      type: "approval.requested",
      id: "a1",
      thread_id: "t1",
      tool_call_id: "c1",
      tool: "str_replace",
      kind: "edit",
      command: "edit app.js",
      diff: { path: "/mnt/user-data/workspace/src/deeply/nested/folder/app.js", patch, added: 12, removed: 12 },
    } as ApprovalRequestedEvent;
    const layout = approvalLayout(request, 14, 60);
    expect(layout.compact).toBe(true);
    const { lines } = frame(<ApprovalPrompt request={request} selected={0} queued={0} layout={layout} width={60} />, 60);
    expect(lines).toHaveLength(layout.rows);
    expect(lines[0]).toMatch(/^Apply this edit\? \+12 −12 ….*\/app\.js · \d+ more \(ctrl\+o\)$/);
    expect(lines.filter((l) => /^[-+](old|new) /.test(l))).toHaveLength(layout.diffRows);
    expect(layout.diffRows).toBe(10);
    expect(lines.at(-1)).toBe("  3. Deny (esc)");
  });
});
