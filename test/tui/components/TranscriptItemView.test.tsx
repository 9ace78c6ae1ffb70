import { describe, expect, it } from "vitest";
import { TranscriptItemView } from "../../../src/tui/components/TranscriptItemView.js";
import type { TranscriptItem } from "../../../src/tui/state/types.js";
import { formatDateTime } from "../../../src/tui/format.js";
import { frame, usage, visibleWidth } from "./helpers.js";
import { helpCommands } from "../../../src/tui/commands/slash-commands.js";
import { helpKeys } from "../../../src/tui/keys/keybindings.js";

const show = (item: TranscriptItem, width = 100) => frame(<TranscriptItemView item={item} width={width} />, width);

describe("TranscriptItemView", () => {
  it("banner: name + version, cwd and the key hint", () => {
    expect(show({ kind: "banner", id: "1", version: "0.1.0", cwd: "/home/me/proj" }).lines).toEqual(["deerflow v0.1.0", "/home/me/proj", "/help for commands · esc cancels · ctrl+c twice exits"]);
  });

  it("user and assistant messages keep line breaks under a lead, with one blank line before", () => {
    expect(show({ kind: "user", id: "1", text: "fix it\nplease" }).lines).toEqual(["", "❯ fix it", "  please"]);
    expect(show({ kind: "assistant", id: "1", text: "Done.\n\n- a\n- b\n" }).lines).toEqual(["", "● Done.", "", "  - a", "  - b"]);
  });

  it("tool: collapsed by default, expanded on request", () => {
    const tool = { id: "t", name: "read_file", args: { path: "a.ts" }, status: "ok" as const, output: "1\n2\n3" };
    expect(show({ kind: "tool", id: "1", tool }).lines).toEqual(["", "✓ read_file a.ts  1"]);
    expect(show({ kind: "tool", id: "1", tool, expanded: true }).lines).toEqual(["", "✓ read_file a.ts", "  1", "  2", "  3"]);
  });

  it("clarification: question, dim context, numbered options", () => {
    const { lines } = show({ kind: "clarification", id: "1", clarification: { question: "Which?", clarification_type: "approach_choice", context: "Two ways.", options: ["A", "B"] } });
    expect(lines).toEqual(["", "? Which?", "  Two ways.", "  1. A", "  2. B"]);
  });

  it("shell: command, indented output, exit code and stop reason", () => {
    expect(show({ kind: "shell", id: "1", command: "ls", cwd: "/", output: "a\nb\n", exitCode: 0 }).lines).toEqual(["", "! ls", "  a", "  b"]);
    expect(show({ kind: "shell", id: "1", command: "false", cwd: "/", output: "", exitCode: 1 }).lines).toEqual(["", "! false", "  exit 1"]);
    expect(show({ kind: "shell", id: "1", command: "sleep 99", cwd: "/", output: "", stoppedBy: "timeout" }).text).toContain("(timed out)");
    expect(show({ kind: "shell", id: "1", command: "sleep 99", cwd: "/", output: "", stoppedBy: "abort" }).text).toContain("(cancelled)");
    const long = Array.from({ length: 230 }, (_, i) => `r${i}`).join("\n");
    expect(show({ kind: "shell", id: "1", command: "seq", cwd: "/", output: long, exitCode: 0 }).text).toContain("… 30 more lines");
  });

  it("notices by level", () => {
    expect(show({ kind: "notice", id: "1", level: "info", text: "Saved." }).lines).toEqual(["", "Saved."]);
    expect(show({ kind: "notice", id: "1", level: "warning", text: "Retrying." }).lines).toEqual(["", "! Retrying."]);
    expect(show({ kind: "notice", id: "1", level: "error", text: "Boom." }).lines).toEqual(["", "✗ Boom."]);
  });

  it("delegations of a finished run: one summary line", () => {
    const { lines } = show({
      kind: "delegations",
      id: "1",
      delegations: [{ id: "d", description: "Scan", subagent_type: "explorer", status: "completed", created_at: "2025-01-01T00:00:00Z", updated_at: "2025-01-01T00:00:03Z" }],
    });
    expect(lines).toEqual(["", "Subagents (1 done) · ctrl+t opens it"]);
  });

  it("delegations, opened (ctrl+t): the whole panel, frozen at the last update", () => {
    const { lines } = show({
      kind: "delegations",
      id: "1",
      expanded: true,
      delegations: [{ id: "d", description: "Scan", subagent_type: "explorer", status: "completed", created_at: "2025-01-01T00:00:00Z", updated_at: "2025-01-01T00:00:03Z" }],
    });
    expect(lines).toEqual(["", "Subagents (1 done)", "  ✓ Scan (explorer) completed · 3.0s"]);
  });

  it("todos: expanded", () => {
    const todos = Array.from({ length: 8 }, (_, i) => ({ content: `t${i}`, status: "pending" as const }));
    const { lines } = show({ kind: "todos", id: "1", todos });
    expect(lines).toHaveLength(1 + 1 + 8);
    // A committed copy cannot be toggled: no ctrl+t hint.
    expect(lines[1]).toBe("Todos 0/8 done");
  });

  it("todos with the agent's notes under them; notes alone", () => {
    const { lines } = show({ kind: "todos", id: "1", todos: [{ content: "fix", status: "in_progress" }], notes: "parser drops CRLF\nnext: test" });
    expect(lines.slice(-4)).toEqual(["", "Notes", "parser drops CRLF", "next: test"]);
    expect(show({ kind: "todos", id: "2", todos: [], notes: "only notes" }).lines.slice(-4)).toEqual(["No todos.", "", "Notes", "only notes"]);
  });

  it("threads: table with the current one marked; empty list", () => {
    const at = "2025-03-04T05:06:00Z";
    const { lines } = show({
      kind: "threads",
      id: "1",
      current: "th-2",
      threads: [
        { id: "th-1", title: "First", updated_at: at, status: "idle", workspace: null },
        { id: "th-2", title: null, updated_at: at, status: "running", workspace: null },
      ],
    });
    expect(lines[1]).toMatch(/^ {2}ID +UPDATED +STATUS +TITLE$/);
    expect(lines[2]).toBe(`  th-1  ${formatDateTime(at)}  idle     First`);
    expect(lines[3]).toBe(`● th-2  ${formatDateTime(at)}  running  (untitled)`);
    expect(show({ kind: "threads", id: "1", threads: [] }).lines).toEqual(["", "No threads yet."]);
  });

  it("threads: long titles stay on one line at 60 columns", () => {
    const threads = [{ id: "0b7c6f0e-5a4d-4c3b-9a8f-7e6d5c4b3a21", title: "A title ".repeat(20), updated_at: "2025-01-01T00:00:00Z", status: "idle", workspace: null }];
    const { lines } = show({ kind: "threads", id: "1", threads }, 60);
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(visibleWidth(l)).toBeLessThanOrEqual(60);
  });

  it("help: two aligned sections", () => {
    const { lines } = show({
      kind: "help",
      id: "1",
      commands: [
        { keys: "/help", description: "Show this help" },
        { keys: "/threads", description: "List threads" },
      ],
      keys: [{ keys: "ctrl+t", description: "Toggle todos" }],
    });
    expect(lines).toEqual(["", "Commands", "  /help     Show this help", "  /threads  List threads", "", "Keys", "  ctrl+t    Toggle todos"]);
  });

  it("help at 60 columns: the real commands and keys stay readable (no description squeezed to one character per row)", () => {
    const { lines } = show({ kind: "help", id: "1", commands: helpCommands(), keys: helpKeys() }, 60);
    for (const l of lines) expect(visibleWidth(l)).toBeLessThanOrEqual(60);
    // Squeezed descriptions took over a thousand rows; now each entry is a line or two (more for a long description).
    expect(lines.length).toBeLessThan(3 * (helpCommands().length + helpKeys().length) + 6);
  });

  it("run-end: stopped, interrupted, failed", () => {
    const base = { kind: "run-end" as const, id: "1", usage: usage(1234), elapsedMs: 4_100 };
    expect(show({ ...base, status: "success", stop_reason: "turn_capped" }).lines).toEqual(["", "Stopped: turn capped · 1.2k tokens · 4.1s"]);
    expect(show({ ...base, status: "interrupted", stop_reason: "interrupted" }).text).toMatch(/^\nInterrupted · 1.2k tokens · 4.1s$/);
    expect(show({ ...base, status: "error", stop_reason: "error" }).text).toContain("Failed");
    expect(show({ ...base, status: "timeout", stop_reason: "error" }).text).toContain("Timed out");
  });
});
