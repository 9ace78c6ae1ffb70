// The input's `/` and `@` completion as pure functions: when a menu is open and what it completes, how commands
// rank, and what a pick does to the text. The menu's drawing is in components/CompletionMenu.test.tsx; the keys in
// test/e2e-tui/input.test.ts.
import { describe, expect, it } from "vitest";
import { SLASH_COMMANDS } from "../../src/tui/commands/slash-commands.js";
import { applyCompletion, commandItems, completionContext, pathItems } from "../../src/tui/input/completion.js";
import { inputOf } from "../../src/tui/input/input-buffer.js";
import { bestMatches } from "../../src/vocabulary/fuzzy-match.js";

describe("completionContext", () => {
  it("a `/word` input with the cursor at its end completes a command; past the first space it does not", () => {
    expect(completionContext(inputOf("/"))).toEqual({ kind: "slash", query: "", start: 0, end: 1 });
    expect(completionContext(inputOf("/comp"))).toEqual({ kind: "slash", query: "comp", start: 0, end: 5 });
    expect(completionContext(inputOf("/title my thread"))).toBeUndefined();
    expect(completionContext(inputOf(" /comp"))).toBeUndefined();
    expect(completionContext({ text: "/comp", cursor: 2 })).toBeUndefined();
  });

  it("an `@` word at the cursor completes a path, anywhere in the message; an e-mail address does not", () => {
    expect(completionContext(inputOf("look at @src/ap"))).toEqual({ kind: "path", query: "src/ap", start: 8, end: 15 });
    expect(completionContext(inputOf("@"))).toEqual({ kind: "path", query: "", start: 0, end: 1 });
    expect(completionContext({ text: "see @rea and more", cursor: 8 })).toEqual({ kind: "path", query: "rea", start: 4, end: 8 });
    expect(completionContext(inputOf("mail me@example.com"))).toBeUndefined();
    expect(completionContext(inputOf("@src/app.ts "))).toBeUndefined();
  });
});

describe("commandItems", () => {
  it("names that start with the query come first, then fuzzy matches; a command needing arguments says so", () => {
    expect(commandItems(SLASH_COMMANDS, "co", 10).map((i) => i.value)).toEqual(["/compact"]);
    const me = commandItems(SLASH_COMMANDS, "me", 10).map((i) => i.value);
    expect(me[0]).toBe("/memory");
    expect(me).toEqual(expect.arrayContaining(["/model", "/resume"]));
    const title = commandItems(SLASH_COMMANDS, "tit", 5)[0]!;
    expect(title).toMatchObject({ value: "/title", label: "/title <text>", needsArgs: true });
    expect(commandItems(SLASH_COMMANDS, "mod", 5)[0]).toMatchObject({ value: "/model", needsArgs: false });
    expect(commandItems(SLASH_COMMANDS, "", 50).map((i) => i.value)).toEqual(SLASH_COMMANDS.map((c) => `/${c.name}`));
    expect(commandItems(SLASH_COMMANDS, "zzzz", 5)).toEqual([]);
  });
});

describe("applyCompletion", () => {
  it("replaces the typed word and adds a space; a directory keeps the word open", () => {
    const b = inputOf("explain @sr");
    const ctx = completionContext(b)!;
    const [dir, file] = pathItems(["src/", "src/app.ts"]);
    expect(applyCompletion(b, ctx, dir!)).toEqual({ text: "explain @src/", cursor: 13 });
    expect(applyCompletion(b, ctx, file!)).toEqual({ text: "explain @src/app.ts ", cursor: 20 });
    const mid = { text: "read @ap then fix", cursor: 8 };
    expect(applyCompletion(mid, completionContext(mid)!, file!)).toEqual({ text: "read @src/app.ts  then fix", cursor: 17 });
    const slash = inputOf("/com");
    expect(applyCompletion(slash, completionContext(slash)!, commandItems(SLASH_COMMANDS, "com", 1)[0]!)).toEqual({ text: "/compact ", cursor: 9 });
  });
});

describe("fuzzy ranking", () => {
  const rank = (paths: string[], q: string) =>
    bestMatches(
      paths.map((p) => ({ text: p, lower: p.toLowerCase(), nameStart: p.replace(/\/$/, "").lastIndexOf("/") + 1 })),
      q,
      10,
      (e) => e,
    ).map((e) => e.text);

  it("a match in the file name beats one spread over folders; a shorter path wins a tie; scattered letters still match", () => {
    const paths = ["app/models/user.ts", "src/user/profile/settings.ts", "src/userService.ts", "lib/u/s/e/r.ts"];
    expect(rank(paths, "user")).toEqual(["app/models/user.ts", "src/userService.ts", "src/user/profile/settings.ts", "lib/u/s/e/r.ts"]);
    expect(rank(paths, "usrsvc")).toEqual(["src/userService.ts"]);
    expect(rank(paths, "USERS")[0]).toBe("src/userService.ts");
    expect(rank(paths, "xyz")).toEqual([]);
  });
});
