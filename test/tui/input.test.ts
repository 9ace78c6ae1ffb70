// The input line without a terminal: buffer editing, Up/Down history, the keybinding registry and slash parsing.
import type { Key } from "ink";
import { describe, expect, it } from "vitest";
import { SLASH_COMMANDS, findSlash, helpCommands, parseSlash } from "../../src/tui/commands/slash-commands.js";
import { EMPTY_INPUT, type InputBuffer, deleteBack, deleteWordBack, inputOf, insert, killToLineStart, lineEnd, lineStart, moveLeft, moveRight } from "../../src/tui/input/input-buffer.js";
import { InputHistory } from "../../src/tui/input/input-history.js";
import { KEYBINDINGS, type KeyAction, actionFor, helpKeys } from "../../src/tui/keys/keybindings.js";

const at = (text: string, cursor: number): InputBuffer => ({ text, cursor });

describe("input buffer", () => {
  it("inserts at the cursor and moves the cursor past the insertion", () => {
    expect(insert(EMPTY_INPUT, "abc")).toEqual(at("abc", 3));
    expect(insert(at("held", 2), "XY")).toEqual(at("heXYld", 4));
    expect(insert(at("x", 0), "a")).toEqual(at("ax", 1));
  });

  it("turns CRLF and lone CR line ends of a paste into \\n", () => {
    expect(insert(EMPTY_INPUT, "one\r\ntwo\rthree\n")).toEqual(at("one\ntwo\nthree\n", 14));
    expect(insert(at("[]", 1), "a\r\nb")).toEqual(at("[a\nb]", 4));
  });

  it("deleteBack erases before the cursor and does nothing at 0", () => {
    expect(deleteBack(at("abc", 3))).toEqual(at("ab", 2));
    expect(deleteBack(at("abc", 1))).toEqual(at("bc", 0));
    const start = at("abc", 0);
    expect(deleteBack(start)).toBe(start);
    expect(deleteBack(EMPTY_INPUT)).toEqual(EMPTY_INPUT);
  });

  it("deleteWordBack erases the previous word and the blanks after it", () => {
    expect(deleteWordBack(inputOf("git commit -m"))).toEqual(at("git commit ", 11));
    expect(deleteWordBack(inputOf("foo bar  "))).toEqual(at("foo ", 4));
    expect(deleteWordBack(at("foo bar baz", 7))).toEqual(at("foo  baz", 4));
    expect(deleteWordBack(inputOf("single"))).toEqual(at("", 0));
    expect(deleteWordBack(at("abc", 0))).toEqual(at("abc", 0));
  });

  it("killToLineStart erases to the start of the current line only (multi-line text)", () => {
    const text = "first line\nsecond line\nthird";
    // cursor inside "second line", after "second"
    expect(killToLineStart(at(text, 17))).toEqual(at("first line\n line\nthird", 11));
    // on the first line
    expect(killToLineStart(at(text, 5))).toEqual(at(" line\nsecond line\nthird", 0));
    // at the very start of a line: nothing to erase
    expect(killToLineStart(at(text, 11))).toEqual(at(text, 11));
    // last line, at the end
    expect(killToLineStart(inputOf(text))).toEqual(at("first line\nsecond line\n", 23));
  });

  it("killToLineStart and lineStart at position 0 of a text that starts with a newline stay put", () => {
    // Regression: String.lastIndexOf("\n", -1) searches position 0, so a leading "\n" used to be taken for the
    // line break before the cursor (Ctrl+U duplicated the newline, Ctrl+A moved the cursor right).
    expect(killToLineStart(at("\nabc", 0))).toEqual(at("\nabc", 0));
    expect(lineStart(at("\nabc", 0))).toEqual(at("\nabc", 0));
  });

  it("lineStart / lineEnd move within the current line of a multi-line text", () => {
    const text = "ab\ncdef\ng";
    expect(lineStart(at(text, 5))).toEqual(at(text, 3));
    expect(lineEnd(at(text, 5))).toEqual(at(text, 7));
    expect(lineStart(at(text, 1))).toEqual(at(text, 0));
    expect(lineEnd(at(text, 1))).toEqual(at(text, 2));
    expect(lineStart(at(text, 9))).toEqual(at(text, 8));
    expect(lineEnd(at(text, 8))).toEqual(at(text, 9));
    // already at the boundaries
    expect(lineStart(at(text, 3))).toEqual(at(text, 3));
    expect(lineEnd(at(text, 7))).toEqual(at(text, 7));
  });

  it("moveLeft / moveRight are clamped to the text", () => {
    expect(moveLeft(at("ab", 0))).toEqual(at("ab", 0));
    expect(moveLeft(at("ab", 2))).toEqual(at("ab", 1));
    expect(moveRight(at("ab", 2))).toEqual(at("ab", 2));
    expect(moveRight(at("ab", 0))).toEqual(at("ab", 1));
  });
});

describe("InputHistory", () => {
  it("browses older entries with prev and newer with next, then restores the draft", () => {
    const h = new InputHistory(["one", "two", "three"]);
    expect(h.next()).toBeUndefined(); // not browsing
    expect(h.prev("my draft")).toBe("three");
    expect(h.prev("three")).toBe("two");
    expect(h.prev("two")).toBe("one");
    expect(h.prev("one")).toBeUndefined(); // oldest
    expect(h.next()).toBe("two");
    expect(h.next()).toBe("three");
    expect(h.next()).toBe("my draft");
    expect(h.next()).toBeUndefined();
  });

  it("push stores non-blank entries, skips a repeat of the last one, and resets browsing", () => {
    const h = new InputHistory();
    expect(h.prev("")).toBeUndefined();
    h.push("ls");
    h.push("ls");
    h.push("   ");
    h.push("");
    h.push("pwd");
    expect(h.prev("")).toBe("pwd");
    expect(h.prev("")).toBe("ls");
    expect(h.prev("")).toBeUndefined();
    h.push("echo"); // while browsing: back to the newest
    expect(h.prev("draft")).toBe("echo");
    expect(h.next()).toBe("draft");
  });

  it("keeps at most `max` entries, dropping the oldest", () => {
    const h = new InputHistory(["a", "b", "c", "d", "e"], 3);
    const seen: string[] = [];
    for (let e = h.prev(""); e !== undefined; e = h.prev("")) seen.push(e);
    expect(seen).toEqual(["e", "d", "c"]);
    const g = new InputHistory([], 2);
    for (const x of ["1", "2", "3", "4"]) g.push(x);
    expect([g.prev(""), g.prev(""), g.prev("")]).toEqual(["4", "3", undefined]);
  });
});

/** An Ink Key with every flag off, plus the given overrides. */
function key(over: Partial<Key> = {}): Key {
  return {
    upArrow: false,
    downArrow: false,
    leftArrow: false,
    rightArrow: false,
    pageDown: false,
    pageUp: false,
    home: false,
    end: false,
    return: false,
    escape: false,
    ctrl: false,
    shift: false,
    tab: false,
    backspace: false,
    delete: false,
    meta: false,
    super: false,
    hyper: false,
    capsLock: false,
    numLock: false,
    ...over,
  };
}

describe("keybindings", () => {
  const cases: [string, string, Partial<Key>, KeyAction][] = [
    ["enter", "\r", { return: true }, "submit"],
    ["alt+enter", "\r", { return: true, meta: true }, "newline"],
    ["esc", "", { escape: true }, "cancel"],
    ["ctrl+c", "c", { ctrl: true }, "interrupt"],
    ["ctrl+d", "d", { ctrl: true }, "exit"],
    ["up", "", { upArrow: true }, "historyPrev"],
    ["down", "", { downArrow: true }, "historyNext"],
    ["ctrl+t", "t", { ctrl: true }, "toggleTodos"],
    ["shift+tab", "", { tab: true, shift: true }, "cycleApproval"],
    ["ctrl+o", "o", { ctrl: true }, "expandTool"],
    ["left", "", { leftArrow: true }, "cursorLeft"],
    ["right", "", { rightArrow: true }, "cursorRight"],
    ["home", "", { home: true }, "lineStart"],
    ["ctrl+a", "a", { ctrl: true }, "lineStart"],
    ["end", "", { end: true }, "lineEnd"],
    ["ctrl+e", "e", { ctrl: true }, "lineEnd"],
    ["backspace", "", { backspace: true }, "deleteBack"],
    ["DEL (what most terminals send for backspace)", "", { delete: true }, "deleteBack"],
    ["ctrl+w", "w", { ctrl: true }, "deleteWord"],
    ["ctrl+u", "u", { ctrl: true }, "killLine"],
  ];

  it.each(cases)("%s → %s", (_name, input, over, expected) => {
    expect(actionFor(input, key(over))).toBe(expected);
  });

  it("every binding is reachable by one of the cases above", () => {
    const covered = new Set(cases.map((c) => c[3]));
    expect(KEYBINDINGS.map((b) => b.action).filter((a) => !covered.has(a))).toEqual([]);
  });

  it("plain typing and unbound keys have no action", () => {
    expect(actionFor("a", key())).toBeUndefined();
    expect(actionFor("c", key())).toBeUndefined(); // a plain c is text, not ctrl+c
    expect(actionFor("t", key({ shift: true }))).toBeUndefined();
    expect(actionFor("", key({ tab: true }))).toBeUndefined(); // tab without shift
    expect(actionFor("z", key({ ctrl: true }))).toBeUndefined();
    expect(actionFor("", key({ pageUp: true }))).toBeUndefined();
  });

  it("/help lists the visible keys and one line for the editing keys", () => {
    const keys = helpKeys().map((k) => k.keys);
    expect(keys).toEqual(expect.arrayContaining(["enter", "esc", "ctrl+c", "ctrl+d", "ctrl+t", "shift+tab", "ctrl+o"]));
    expect(keys).not.toContain("ctrl+w");
    expect(keys.some((k) => k.includes("ctrl+w/u"))).toBe(true);
  });
});

describe("slash commands", () => {
  it("parses the name (lower-cased) and the trimmed arguments", () => {
    expect(parseSlash("/goal clear")).toEqual({ name: "goal", args: "clear" });
    expect(parseSlash("/goal   make the tests pass  ")).toEqual({ name: "goal", args: "make the tests pass" });
    expect(parseSlash("/resume abc")).toEqual({ name: "resume", args: "abc" });
    expect(parseSlash("  /help  ")).toEqual({ name: "help", args: "" });
    expect(parseSlash("/QUIT")).toEqual({ name: "quit", args: "" });
    expect(parseSlash("/title line one\nline two")).toEqual({ name: "title", args: "line one\nline two" });
  });

  it("is null for text that is not a command", () => {
    expect(parseSlash("hello")).toBeNull();
    expect(parseSlash("/")).toBeNull();
    expect(parseSlash("")).toBeNull();
  });

  it("finds commands; /quit is /exit; unknown names are undefined", () => {
    expect(findSlash("goal")?.name).toBe("goal");
    expect(findSlash("resume")?.args).toBe("<id>");
    expect(findSlash(parseSlash("/QUIT")!.name)?.name).toBe("exit");
    expect(findSlash("exit")?.name).toBe("exit");
    expect(findSlash("foo")).toBeUndefined();
    expect(findSlash("GOAL")).toBeUndefined(); // parseSlash lower-cases; findSlash itself is exact
  });

  it("/help lists every command plus !cmd and @path", () => {
    const lines = helpCommands().map((c) => c.keys);
    for (const c of SLASH_COMMANDS) expect(lines.some((l) => l.startsWith(`/${c.name}`))).toBe(true);
    expect(lines).toContain("/goal [text|clear]");
    expect(lines).toContain("!<command>");
    expect(lines).toContain("@<path>");
  });
});

describe("input editing with emoji and combined characters", () => {
  it("backspace and the arrows act on whole characters, never half a surrogate pair", async () => {
    const { deleteBack, moveLeft, moveRight, inputOf } = await import("../../src/tui/input/input-buffer.js");
    expect(deleteBack(inputOf("hi 🎉")).text).toBe("hi ");
    expect(deleteBack(inputOf("flag 🇫🇷")).text).toBe("flag ");
    expect(deleteBack(inputOf("cafe\u0301")).text).toBe("caf");
    const end = inputOf("中文🎉ab");
    const left3 = moveLeft(moveLeft(moveLeft(end)));
    expect(left3.cursor).toBe("中文".length);
    expect(moveRight(left3).cursor).toBe("中文🎉".length);
    expect(deleteBack(moveRight(left3)).text).toBe("中文ab");
  });
});
