import { describe, expect, it } from "vitest";
import { CompletionMenu, completionMenuRows } from "../../../src/tui/components/CompletionMenu.js";
import { SLASH_COMMANDS } from "../../../src/tui/commands/slash-commands.js";
import { commandItems, pathItems } from "../../../src/tui/input/completion.js";
import { frame } from "./helpers.js";

describe("CompletionMenu", () => {
  it("shows its keys first, then the rows with the selected one marked and what each command does", () => {
    const list = { items: commandItems(SLASH_COMMANDS, "t", 3) };
    const { lines } = frame(<CompletionMenu list={list} selected={2} maxRows={8} />, 80);
    // A command that needs arguments is completed by enter, not run.
    expect(lines[0]).toBe("↑↓ select · tab complete · enter complete · esc close");
    expect(lines.slice(1).map((l) => l.slice(0, 2))).toEqual(["  ", "  ", "❯ "]);
    expect(lines[1]).toMatch(/^  \/todos\s+show the full todo list/);
    expect(lines[3]).toMatch(/^❯ \/title <text>\s+rename this thread$/);
    expect(frame(<CompletionMenu list={list} selected={1} maxRows={8} />, 80).lines[0]).toContain("enter run");
    expect(lines).toHaveLength(completionMenuRows(list, 8));
  });

  it("a long list scrolls to keep the selection in view; a path row is the path; no rows shows the note", () => {
    const list = { items: pathItems(Array.from({ length: 20 }, (_, i) => `src/f${i}.ts`)) };
    const { lines } = frame(<CompletionMenu list={list} selected={12} maxRows={4} />, 60);
    expect(lines.slice(1)).toEqual(["  src/f9.ts", "  src/f10.ts", "  src/f11.ts", "❯ src/f12.ts"]);
    expect(lines[0]).toContain("enter complete");
    const empty = frame(<CompletionMenu list={{ items: [], note: "Indexing the workspace's files…" }} selected={0} maxRows={4} />, 60);
    expect(empty.lines).toEqual(["esc close", "Indexing the workspace's files…"]);
    expect(completionMenuRows({ items: [] }, 4)).toBe(2);
  });
});
