// End to end in a real terminal: a guarded bash command (ask-first: recursive delete) waits for the user, who
// allows or denies it from the keyboard; Shift+Tab cycles the approval mode shown in the status line.
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import type { RecordedRequest } from "../support/openai-server.js";
import { pathWithoutBwrap } from "../support/confinement.js";
import { inputText, statusLine, submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

/** Creates the directory first, so the recursive delete (what the audit asks about) has something to remove. */
const GUARDED = "mkdir -p build/out && rm -rv build";
const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: "bash", args: { command } }] });

/** The tool result the model received for `toolCallId`. */
function toolResult(req: RecordedRequest, toolCallId: string): string {
  const m = (req.body.messages as { role: string; tool_call_id?: string; content: unknown }[]).find((x) => x.role === "tool" && x.tool_call_id === toolCallId);
  if (!m) throw new Error(`no tool result for ${toolCallId} in the request`);
  return typeof m.content === "string" ? m.content : JSON.stringify(m.content);
}

describe("approving guarded commands in the terminal", () => {
  it("shows the command and asks; 1 allows it once and the model receives the command's real output", async () => {
    const sb = e2e.sandbox();
    e2e.server.push(bash("b1", GUARDED), { content: "The build folder is gone." });
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    await submit(t, "clean the build");

    await t.waitFor("Allow this command?", { where: "screen" });
    const screen = t.screen();
    expect(screen).toContain(GUARDED);
    expect(screen).toContain("why it asks: recursive delete (rm -r)");
    expect(screen).toMatch(/❯ 1\. Allow once/);
    expect(screen).toContain("2. Allow always for this thread");
    expect(screen).toContain("3. Deny");
    // The model is waiting on the tool: nothing was sent after the first request.
    expect(e2e.server.requests).toHaveLength(1);

    await t.type("1");
    await t.waitFor("The build folder is gone.");
    await t.waitForGone("Allow this command?");
    expect(t.scrollback()).toContain(`Allowed once: ${GUARDED}`);
    expect(t.scrollback()).toMatch(/✓ bash mkdir -p build\/out && rm -rv build .*removed/);
    const result = toolResult(e2e.server.requests[1]!, "b1");
    expect(result).not.toMatch(/^Denied/);
    expect(result).toContain("removed directory 'build/out'");
    expect(result).toContain("removed directory 'build'");
  }, 60_000);

  it("letters never answer (a sentence typed as the prompt appears, kept in the input); 3 then enter denies, and so does esc: each time the model receives a tool result starting with Denied", async () => {
    const sb = e2e.sandbox();
    e2e.server.push(bash("d1", GUARDED), { content: "Understood, I will not delete it." });
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    await submit(t, "clean the build");
    await t.waitFor("Allow this command?", { where: "screen" });
    await t.type("any news? also, can you explain");
    await new Promise((r) => setTimeout(r, 300));
    await t.settle();
    expect(t.screen()).toContain("Allow this command?");
    expect(e2e.server.requests).toHaveLength(1);
    // What was typed is kept in the input box (nothing lost); while it holds text, digits belong to it too.
    await t.waitFor(() => inputText(t).startsWith("any news? also, can you explain"), { where: "screen" });
    await t.press("ctrl-u");
    await t.waitFor(() => !inputText(t).includes("any news"), { where: "screen" });
    // 3 asks why; Enter on an empty reason denies without one.
    await t.type("3");
    await t.waitFor("Deny: why?", { where: "screen" });
    await t.press("enter");
    await t.waitFor("Understood, I will not delete it.");
    expect(t.scrollback()).toContain(`Denied: ${GUARDED}`);
    expect(toolResult(e2e.server.requests[1]!, "d1")).toMatch(/^Denied: recursive delete \(rm -r\) was not approved \(the user denied it/);

    // Second turn on the same thread: Esc on the prompt is a denial too (it does not cancel the run).
    e2e.server.push(bash("d2", "rm -r build"), { content: "Leaving it alone then." });
    await submit(t, "really clean it");
    await t.waitFor(/Allow this command\?[\s\S]*rm -r build/, { where: "screen" });
    await t.press("esc");
    await t.waitFor("Leaving it alone then.");
    await t.waitForGone("Allow this command?");
    expect(toolResult(e2e.server.requests[3]!, "d2")).toMatch(/^Denied:/);
    expect(t.scrollback()).not.toContain("Interrupted");
  }, 60_000);

  it("shift+tab cycles the approval mode in the status line: ask → auto-edit → plan → yolo → ask; yolo runs a guarded command without asking", async () => {
    const sb = e2e.sandbox();
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    expect(statusLine(t)).toContain("approval: ask (shift+tab)");
    await t.press("shift-tab");
    await t.waitFor(() => statusLine(t).includes("approval: auto-edit"), { where: "screen" });
    await t.press("shift-tab");
    await t.waitFor(() => statusLine(t).includes("approval: plan"), { where: "screen" });
    await t.press("shift-tab");
    await t.waitFor(() => statusLine(t).includes("approval: yolo"), { where: "screen" });

    e2e.server.push(bash("y1", GUARDED), { content: "Deleted without asking." });
    await submit(t, "clean the build");
    await t.waitFor("Deleted without asking.");
    expect(t.scrollback()).not.toContain("Allow this command?");
    expect(toolResult(e2e.server.requests[1]!, "y1")).toContain("removed directory 'build'");

    await t.press("shift-tab");
    await t.waitFor(() => statusLine(t).includes("approval: ask (shift+tab)"), { where: "screen" });
  }, 60_000);

  it("without bubblewrap, shift+tab skips yolo with one notice; with --dangerously-run-unconfined it reaches yolo", async () => {
    const sb = e2e.sandbox();
    const env = { PATH: pathWithoutBwrap(sb) };
    const t = tui.spawn(sb, ["chat"], { env });
    await waitReady(t);
    await t.press("shift-tab");
    await t.waitFor(() => statusLine(t).includes("approval: auto-edit"), { where: "screen" });
    await t.press("shift-tab");
    await t.waitFor(() => statusLine(t).includes("approval: plan"), { where: "screen" });
    await t.press("shift-tab");
    await t.waitFor("yolo needs bubblewrap here");
    await t.waitFor(() => statusLine(t).includes("approval: ask (shift+tab)"), { where: "screen" });
    expect(t.scrollback().match(/yolo needs bubblewrap here/g)).toHaveLength(1);

    const allowed = tui.spawn(sb, ["chat", "--dangerously-run-unconfined"], { env });
    await waitReady(allowed);
    await allowed.press("shift-tab");
    await allowed.waitFor(() => statusLine(allowed).includes("approval: auto-edit"), { where: "screen" });
    await allowed.press("shift-tab");
    await allowed.waitFor(() => statusLine(allowed).includes("approval: plan"), { where: "screen" });
    await allowed.press("shift-tab");
    await allowed.waitFor(() => statusLine(allowed).includes("approval: yolo"), { where: "screen" });
    expect(allowed.scrollback()).not.toContain("yolo needs bubblewrap");
  }, 60_000);
});
