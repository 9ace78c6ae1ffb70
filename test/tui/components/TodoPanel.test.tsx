import { describe, expect, it } from "vitest";
import { TodoPanel, todoWindow } from "../../../src/tui/components/TodoPanel.js";
import type { TodoView } from "../../../src/tui/state/types.js";
import { frame, visibleWidth } from "./helpers.js";

const todos = (n: number, inProgress: number | null, doneBefore = inProgress ?? 0): TodoView[] =>
  Array.from({ length: n }, (_, i) => ({
    content: `task ${i + 1}`,
    status: i === inProgress ? "in_progress" : i < doneBefore ? "completed" : "pending",
  }));

describe("TodoPanel", () => {
  it("renders nothing without todos", () => {
    expect(frame(<TodoPanel todos={[]} expanded={false} />).text).toBe("");
    expect(frame(<TodoPanel todos={[]} expanded />).text).toBe("");
  });

  it("shows the count and every item with its mark when few", () => {
    const { lines } = frame(<TodoPanel todos={todos(3, 1)} expanded={false} />);
    expect(lines).toEqual(["Todos 1/3 done", "  ● task 1", "  ◐ task 2", "  ○ task 3"]);
  });

  it("collapses 30 todos to a window around the in-progress item with “… N more”", () => {
    const { lines } = frame(<TodoPanel todos={todos(30, 17)} expanded={false} />);
    expect(lines[0]).toBe("Todos 17/30 done · ctrl+t to expand");
    expect(lines).toContain("  ◐ task 18");
    expect(lines.filter((l) => /^ {2}[●◐○] /.test(l))).toHaveLength(5);
    expect(lines[1]).toBe("  … 16 more");
    expect(lines[lines.length - 1]).toBe("  … 9 more");
  });

  it("focuses the first open item when nothing is in progress, and respects maxCollapsed", () => {
    const list = todos(12, null, 4);
    const { lines } = frame(<TodoPanel todos={list} expanded={false} maxCollapsed={3} />);
    expect(lines).toContain("  ○ task 5");
    expect(lines.filter((l) => /^ {2}[●◐○] /.test(l))).toHaveLength(3);
  });

  it("keeps the window inside the list at both ends", () => {
    expect(todoWindow(todos(30, 0), 5)).toEqual([0, 5]);
    expect(todoWindow(todos(30, 29), 5)).toEqual([25, 30]);
    expect(todoWindow(todos(30, null, 30), 5)).toEqual([25, 30]);
  });

  it("shows all 30 items when expanded", () => {
    const { lines } = frame(<TodoPanel todos={todos(30, 2)} expanded />);
    expect(lines[0]).toBe("Todos 2/30 done · ctrl+t to collapse");
    expect(lines).toHaveLength(31);
    expect(lines.some((l) => l.includes("more"))).toBe(false);
  });

  it("truncates long items to one line when collapsed and wraps them when expanded (60 columns)", () => {
    const long: TodoView[] = [
      { content: `Refactor the ${"very ".repeat(30)}long module END`, status: "in_progress" },
      { content: "short", status: "pending" },
    ];
    const collapsed = frame(<TodoPanel todos={long} expanded={false} />, 60).lines;
    expect(collapsed).toHaveLength(3);
    for (const l of collapsed) expect(visibleWidth(l)).toBeLessThanOrEqual(60);
    expect(collapsed[1]).toMatch(/…$/);
    const expanded = frame(<TodoPanel todos={long} expanded />, 60);
    expect(expanded.lines.length).toBeGreaterThan(3);
    expect(expanded.text).toContain("END");
    for (const l of expanded.lines) expect(visibleWidth(l)).toBeLessThanOrEqual(60);
  });
});
