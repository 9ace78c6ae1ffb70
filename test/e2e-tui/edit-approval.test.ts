// End to end in a real terminal: file edits in `ask` mode (the chat's default) show their diff and wait for the user;
// a denial's reason reaches the model; "allow edits for this thread" stops asking; the committed tool card shows the
// diff, ctrl+o all of it.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import type { RecordedRequest } from "../support/openai-server.js";
import { inputText, submit, typeEchoed, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

const call = (id: string, name: string, args: Record<string, unknown>) => ({ toolCalls: [{ id, name, args }] });

function toolResult(req: RecordedRequest, toolCallId: string): string {
  const m = (req.body.messages as { role: string; tool_call_id?: string; content: unknown }[]).find((x) => x.role === "tool" && x.tool_call_id === toolCallId);
  if (!m) throw new Error(`no tool result for ${toolCallId} in the request`);
  return typeof m.content === "string" ? m.content : JSON.stringify(m.content);
}

function repoWith(root: string, files: Record<string, string>): string {
  const repo = join(root, "repo");
  mkdirSync(repo, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(repo, name), text);
  return repo;
}

describe("file edits in ask mode", () => {
  it("shows the diff and waits; letters go to the input, never to the prompt; 3 asks why and the reason reaches the model; nothing is written", async () => {
    const sb = e2e.sandbox();
    const repo = repoWith(sb.cwd, { "app.js": "const a = 0;\nconst x = 1;\nexport { x };\n" });
    e2e.server.push(call("r1", "read_file", { path: "app.js" }), call("s1", "str_replace", { path: "app.js", old_str: "const x = 1;", new_str: "const x = 2;" }), {
      content: "Understood, x stays 1.",
    });
    const t = tui.spawn(sb, ["chat", "-w", repo]);
    await waitReady(t);
    await submit(t, "bump x");

    await t.waitFor("Apply this edit?", { where: "screen" });
    let screen = t.screen();
    // The file by its real path relative to the workspace, not the model's /mnt/user-data view.
    expect(screen).toContain("app.js");
    expect(screen).not.toContain("/mnt/user-data");
    expect(screen).toContain("+1 −1");
    expect(screen).toMatch(/^\s*-const x = 1;$/m);
    expect(screen).toMatch(/^\s*\+const x = 2;$/m);
    expect(screen).toContain("2. Allow edits for this thread");
    // The model waits on the tool: the read's answer was the last request.
    expect(e2e.server.requests).toHaveLength(2);

    // A sentence typed as the prompt appears (digits and Enter included) stays in the input box; the prompt stays.
    await typeEchoed(t, "also fix 2 bugs");
    await t.press("enter");
    await new Promise((r) => setTimeout(r, 300));
    await t.settle();
    screen = t.screen();
    expect(screen).toContain("Apply this edit?");
    expect(inputText(t)).toMatch(/^also fix 2 bugs/);
    expect(screen).toContain("Answer the prompt above first (1-3, or esc to deny); your message is kept.");
    expect(e2e.server.requests).toHaveLength(2);

    await t.press("ctrl-u");
    await t.waitFor(() => !inputText(t).includes("also fix"), { where: "screen" });
    await t.type("3");
    await t.waitFor("Deny: why?", { where: "screen" });
    await t.type("keep x at 1, it is a constant");
    await t.waitFor("keep x at 1, it is a constant", { where: "screen" });
    await t.press("enter");
    await t.waitFor("Understood, x stays 1.");
    expect(toolResult(e2e.server.requests[2]!, "s1")).toBe(
      'Denied: the edit to app.js was not approved (the user denied it; do not retry it, ask the user or take another way). The user said: "keep x at 1, it is a constant"',
    );
    expect(t.scrollback()).toContain("Denied: edit app.js (+1 −1) (keep x at 1, it is a constant)");
    expect(readFileSync(join(repo, "app.js"), "utf8")).toBe("const a = 0;\nconst x = 1;\nexport { x };\n");
  }, 90_000);

  it("2 allows edits for the rest of the thread: the second edit applies without asking; the card shows the diff, ctrl+o all of it", async () => {
    const sb = e2e.sandbox();
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);
    const repo = repoWith(sb.cwd, { "notes.txt": `${lines.join("\n")}\n` });
    const rewritten = lines.map((l, i) => (i % 2 === 0 ? `${l} (edited)` : l));
    e2e.server.push(
      call("r1", "read_file", { path: "notes.txt" }),
      call("s1", "str_replace", { path: "notes.txt", old_str: "line 1\n", new_str: "line 1 (first)\n" }),
      call("w1", "write_file", { path: "notes.txt", content: `${rewritten.join("\n")}\n` }),
      { content: "Both edits are in." },
    );
    const t = tui.spawn(sb, ["chat", "-w", repo]);
    await waitReady(t);
    await submit(t, "edit the notes");
    await t.waitFor("Apply this edit?", { where: "screen" });
    await t.type("2");
    await t.waitFor("Both edits are in.");
    const all = t.scrollback();
    expect(all.match(/Allowed edits for this thread: /g)).toHaveLength(1);
    // The second edit was never asked about.
    expect(all).not.toMatch(/Apply this edit\?/);
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe(`${rewritten.join("\n")}\n`);
    // The committed cards: the first edit whole (+1 −1), the rewrite cut to its first rows with a pointer to ctrl+o.
    expect(all).toMatch(/✓ str_replace notes\.txt/);
    expect(all).toMatch(/^\s+\+1 −1$/m);
    expect(all).toMatch(/^\s+\+20 −20$/m);
    expect(all).toMatch(/… \d+ more lines · ctrl\+o to see all/);
    expect(all).not.toContain("line 39 (edited)");

    await t.press("ctrl-o");
    await t.waitFor("line 39 (edited)");
    expect(t.scrollback()).toMatch(/^\s+\+line 39 \(edited\)$/m);
  }, 90_000);
});

describe("edits made through bash in ask mode", () => {
  it("a command that writes files asks as an edit (command and why, no diff); 2 allows edits for the thread: the next bash edit and write_file apply unasked; reads never ask", async () => {
    const sb = e2e.sandbox();
    const repo = repoWith(sb.cwd, { "notes.txt": "old\n" });
    e2e.server.push(
      call("c1", "bash", { command: "cat notes.txt" }),
      call("b1", "bash", { command: "printf 'new\\n' > notes.txt" }),
      call("b2", "bash", { command: "sed -i s/new/newer/ notes.txt" }),
      call("w1", "write_file", { path: "more.txt", content: "more\n" }),
      { content: "Notes rewritten." },
    );
    const t = tui.spawn(sb, ["chat", "-w", repo]);
    await waitReady(t);
    await submit(t, "rewrite the notes");
    await t.waitFor("Allow this command's edits?", { where: "screen" });
    const screen = t.screen();
    expect(screen).toContain("printf 'new\\n' > notes.txt");
    expect(screen).toContain("why it asks: writes files (ask mode asks before edits)");
    expect(screen).toContain("2. Allow edits for this thread");
    expect(toolResult(e2e.server.requests[1]!, "c1")).toBe("old");
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("old\n");
    await t.type("2");
    await t.waitFor("Notes rewritten.");
    const all = t.scrollback();
    expect(all.match(/Allowed edits for this thread: /g)).toHaveLength(1);
    expect(all).toContain("Allowed edits for this thread: printf 'new\\n' > notes.txt");
    expect(all).not.toMatch(/Allow this command's edits\?|Apply this edit\?|Create this file\?/);
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("newer\n");
    expect(readFileSync(join(repo, "more.txt"), "utf8")).toBe("more\n");
  }, 90_000);
});

describe("a hostile model's edits in ask mode", () => {
  it("escape sequences never reach the terminal; a path outside the workspace fails without asking; binary content is shown by size; two parallel edits: 2 allows both with one answer", async () => {
    const sb = e2e.sandbox();
    const repo = repoWith(sb.cwd, {});
    const evil = "line one\n\x1b]0;pwned-title\x07\x1b[2J\x1b[31mred?\x1b[0m\n";
    e2e.server.push(
      call("o1", "write_file", { path: "../../../../etc/deerflow-pwned", content: "x" }),
      {
        toolCalls: [
          { id: "p1", name: "write_file", args: { path: "evil.txt", content: evil } },
          { id: "p2", name: "write_file", args: { path: "blob.bin", content: "PK\u0000\u0001binary\u0000" } },
        ],
      },
      { content: "All written." },
    );
    const t = tui.spawn(sb, ["chat", "-w", repo]);
    await waitReady(t);
    await submit(t, "write things");
    await t.waitFor(/Create this file\?.*\(\+1 more waiting\)/, { where: "screen" });
    const all = t.scrollback();
    // The escape path was refused by the tool itself, never offered for approval.
    expect(all).toMatch(/✗ write_file \.\.\/\.\.\/\.\.\/\.\.\/etc\/deerflow-pwned .*SandboxPat/);
    expect(toolResult(e2e.server.requests[1]!, "o1")).toContain("outside the thread's directories");
    expect(t.screen()).not.toContain("pwned-title");
    // The two calls run in parallel: either prompt may come first.
    await t.type("2");
    await t.waitFor("All written.");
    await t.waitForGone(/Create this file\?/);
    expect(t.scrollback().match(/Allowed edits for this thread/g)).toHaveLength(1);
    expect(t.scrollback()).toMatch(/binary, 0 → 11 bytes/);
    expect(t.scrollback()).toMatch(/^\s+\+line one$/m);
    // The file holds exactly what the model wrote; the screen showed it cleaned.
    expect(readFileSync(join(repo, "evil.txt"), "utf8")).toBe(evil);
    expect(readFileSync(join(repo, "blob.bin")).length).toBe(11);
    expect(t.raw()).not.toContain("\x1b]0;pwned");
  }, 90_000);
});

describe("the edit prompt on a small screen", () => {
  it("at 60x20 a 40-line diff is cut to fit: the question, the options and the status line stay on screen; no line is wider than the screen", async () => {
    const sb = e2e.sandbox();
    const repo = repoWith(sb.cwd, {});
    const content = Array.from({ length: 40 }, (_, i) => `row ${i + 1} ${"x".repeat(70)}`).join("\n") + "\n";
    e2e.server.push(call("w1", "write_file", { path: "wide.txt", content }), { content: "ok" });
    const t = tui.spawn(sb, ["chat", "-w", repo], { cols: 60, rows: 20 });
    await waitReady(t);
    await submit(t, "write it");
    await t.waitFor("Create this file?", { where: "screen" });
    await t.waitFor("1. Allow once", { where: "screen" });
    const screen = t.screen();
    expect(screen).toContain("3. Deny");
    // The question names the file and says how many more lines ctrl+o prints; the rest of the screen is changes.
    expect(screen).toMatch(/^Create this file\? new file, \+40 .*wide\.txt · \d+ more \(ctrl\+o\)$/m);
    expect(screen.split("\n").filter((r) => /^\+row \d+ x/.test(r)).length).toBeGreaterThanOrEqual(10);
    expect(screen).toMatch(/approval: ask/);
    expect(t.softWrappedRows()).toEqual([]);
    // Ink clears the whole screen when the live region outgrows it (the flicker): never here.
    expect(t.raw()).not.toContain("\x1b[2J");
    await t.press("esc");
    await t.waitFor("ok");
  }, 60_000);
});
