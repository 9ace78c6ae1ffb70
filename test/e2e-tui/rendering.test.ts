// End to end in a real terminal: how the chat draws — a narrow terminal, NO_COLOR, and no flicker while an answer
// streams (Ink clears the whole terminal when its live region outgrows the screen; the chat keeps it smaller).
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { userTexts } from "../support/requests.js";
import { inputArea, statusLine, submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

/** SGR sequences that set a colour: 30–49 (3x/4x, incl. 38/48 extended and 39/49 defaults), 90–97, 100–107. */
function colourSequences(raw: string): string[] {
  const found: string[] = [];
  for (const m of raw.matchAll(/\x1b\[([\d;:]*)m/g)) {
    const params = m[1]!.split(/[;:]/).filter(Boolean).map(Number);
    // After 38/48 come the colour's own numbers; the first parameter decides.
    if (params.some((p) => (p >= 30 && p <= 49) || (p >= 90 && p <= 97) || (p >= 100 && p <= 107))) found.push(JSON.stringify(m[0]));
  }
  return [...new Set(found)];
}

const CLEAR_SCREEN = ["\x1b[2J", "\x1b[3J"];

describe("a narrow terminal (60 columns)", () => {
  it("every line fits: the terminal never has to wrap one; the input and status line stay visible; NO_COLOR means no colour at all", async () => {
    const sb = e2e.sandbox();
    expect(sb.env.NO_COLOR).toBe("1");
    const answer = "A fairly long answer that will certainly need to wrap around at sixty columns because it is long. ".repeat(3);
    const longCommand = "mkdir -p build/a/very/long/path/that/keeps/going/on/and/on && rm -rv build";
    e2e.server.push({ toolCalls: [{ id: "b1", name: "bash", args: { command: longCommand } }] }, { content: answer });
    const t = tui.spawn(sb, ["chat"], { cols: 60, rows: 24 });
    await waitReady(t);
    await submit(t, "a long question that goes on and on past the right edge of this narrow terminal");

    await t.waitFor("Allow this command?", { where: "screen" });
    // The command is shown in full, wrapped inside its box.
    expect(t.screen().replace(/[│\s]+/g, "")).toContain(longCommand.replace(/\s+/g, ""));
    await t.type("1");
    await t.waitFor("because it is long.");
    await t.waitForGone("Working…");

    const screen = t.screen().split("\n");
    for (const row of screen) expect([...row].length).toBeLessThanOrEqual(60);
    // Ink lays every line out to fit; a row the terminal had to wrap means a line was drawn too wide.
    expect(t.softWrappedRows()).toEqual([]);
    expect(inputArea(t)).toMatch(/^❯ Ask anything/);
    expect(statusLine(t)).toMatch(/^test-model · [0-9a-f]{8,}/);
    expect(statusLine(t).length).toBeLessThanOrEqual(60);
    // The wrapped answer reads as words, not as words cut by the terminal's edge.
    expect(t.scrollback().replace(/\s+/g, " ")).toContain(answer.trim());
    expect(colourSequences(t.raw())).toEqual([]);
  }, 60_000);
});

describe("streaming a long answer", () => {
  it("200 chunks: the live region shows the tail, the terminal is never cleared, the answer lands once in the transcript, in colour", async () => {
    const sb = e2e.sandbox();
    const lines = Array.from({ length: 100 }, (_, i) => `streamed line ${i + 1}`);
    // splitWords sends "streamed ", "line ", "N\n": 300 content chunks.
    e2e.server.push({ content: lines.join("\n"), chunkDelayMs: 8 });
    const t = tui.spawn(sb, ["chat"], { env: { NO_COLOR: undefined } });
    await waitReady(t);
    await submit(t, "stream a long answer");

    // While streaming: only the tail is live, with a note of what scrolled away.
    await t.waitFor(/… \d+ earlier lines/, { where: "screen", timeoutMs: 20_000 });
    expect(t.screen()).toContain("esc to cancel");
    await t.waitFor("streamed line 100");
    await t.waitForGone("Working…");

    const raw = t.raw();
    for (const seq of CLEAR_SCREEN) expect(raw.includes(seq), `the terminal was cleared (${JSON.stringify(seq)})`).toBe(false);
    const all = t.scrollback().split("\n");
    for (const line of lines)
      expect(
        all.filter((row) => row.replace(/^[●\s]+/, "") === line),
        line,
      ).toHaveLength(1);
    expect(all.some((row) => /earlier lines/.test(row))).toBe(false);
    expect(t.softWrappedRows()).toEqual([]);
    expect(inputArea(t)).toMatch(/^❯ Ask anything/);
    // Without NO_COLOR the chat does use colour (so the NO_COLOR check above means something).
    expect(colourSequences(raw).length).toBeGreaterThan(0);
  }, 60_000);
});

describe("typing", () => {
  it("keeps every keystroke however fast they come, and Enter sends exactly what was typed", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "got it" });
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    const letters = "abcdefghijklmnopqrstuvwxyz";
    await t.type(letters, 2);
    await t.waitFor(() => inputArea(t).includes(letters), { where: "screen" });
    await t.type(" 0123456789", 0);
    await t.press("enter");
    await t.waitFor("got it");
    const human = userTexts(e2e.server.requests[0]!).at(-1)!;
    expect(human).toBe(`${letters} 0123456789`);
  });
});

describe("multi-line messages", () => {
  it("a trailing \\ + Enter and Alt+Enter start a new line; Enter sends all lines as one message", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "three lines received" });
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    await t.type("first\\");
    await t.press("enter");
    // Each key after the line break is shown: typed in one read with the next text ("\\\rsecond"), the terminal
    // cannot tell it from a pasted line that ends in a backslash, which stays as pasted.
    await t.waitFor(() => /❯ first\n/.test(inputArea(t)), { where: "screen" });
    await t.type("second");
    await t.waitFor(() => /❯ first\n\s+second/.test(inputArea(t)), { where: "screen" });
    await t.write("\x1b\r"); // Alt+Enter
    await t.waitFor(() => /❯ first\n\s+second\n/.test(inputArea(t)), { where: "screen" });
    await t.type("third");
    await t.waitFor(() => /❯ first\n\s+second\n\s+third/.test(inputArea(t)), { where: "screen" });
    await t.press("enter");
    await t.waitFor("three lines received");
    const human = userTexts(e2e.server.requests[0]!).at(-1)!;
    expect(human).toBe("first\nsecond\nthird");
  });
});

describe("hostile or oversized content", () => {
  it("escape sequences and carriage returns in a model answer never reach the terminal", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "Start \x1b[31mRED\x1b[0m mid\rOVER and more\nline3 \x1b]0;HACKED TITLE\x07 end" });
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    await submit(t, "say something odd");
    await t.waitFor("line3");
    await t.waitForGone("Working…");
    const raw = t.raw();
    expect(raw).not.toContain("\x1b]0;");
    expect(raw).not.toContain("HACKED TITLE\x07");
    expect(colourSequences(raw)).toEqual([]);
    expect(t.scrollback()).toMatch(/● Start RED mid\n\s+OVER and more\n\s+line3 {1,2}end/);
  });

  it("a 5,000-character paste stays a bounded input box: the screen is never cleared, Enter sends it whole", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "pasted text received" });
    const t = tui.spawn(sb, ["chat"], { cols: 80, rows: 24 });
    await waitReady(t);
    const paste = Array.from({ length: 60 }, (_, i) => `line ${String(i).padStart(2, "0")} ${"x".repeat(75)}`).join("\n");
    await t.write(paste);
    await t.waitFor(/earlier lines \(\d+ characters in all\)/, { where: "screen" });
    await t.waitFor("line 59", { where: "screen" });
    await t.press("enter");
    await t.waitFor("pasted text received");
    for (const seq of CLEAR_SCREEN) expect(t.raw()).not.toContain(seq);
    const human = userTexts(e2e.server.requests[0]!).at(-1)!;
    expect(human).toBe(paste);
  });

  it("a long question with long options at 60x24: answered with free text, the answer lands in the transcript, no clear-screen", async () => {
    const sb = e2e.sandbox();
    const long = (s: string) => `${s} ${"and some more words that make it wrap ".repeat(3)}`;
    e2e.server.push(
      {
        toolCalls: [
          {
            id: "q1",
            name: "ask_clarification",
            args: { question: long("Which way should we go with this?"), clarification_type: "approach_choice", context: long("Context:"), options: [long("First"), long("Second"), long("Third")] },
          },
        ],
      },
      { content: "thanks for the answer" },
    );
    const t = tui.spawn(sb, ["chat"], { cols: 60, rows: 24 });
    await waitReady(t);
    await submit(t, "decide something");
    await t.waitFor("Type your own answer", { where: "screen" });
    await submit(t, "my own answer");
    await t.waitFor("thanks for the answer");
    expect(t.scrollback()).toContain("❯ my own answer");
    for (const seq of CLEAR_SCREEN) expect(t.raw()).not.toContain(seq);
  });

  it("a line typed before the first frame is kept and sent once the model is ready", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "early bird answered" });
    const t = tui.spawn(sb, ["chat"]);
    await t.write("early one\r");
    await t.waitFor("early bird answered", { timeoutMs: 20_000 });
    // (Keys typed before node even starts are echoed by the terminal itself; from the chat's start they are not.)
    expect(t.scrollback()).toContain("❯ early one");
    expect(e2e.server.requests).toHaveLength(1);
  });
});
