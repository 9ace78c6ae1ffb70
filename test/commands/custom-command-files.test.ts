// Custom command files on a real filesystem: Claude Code's documented example used unchanged, namespaces, nearest
// first, built-in names never taken, and hostile files (escape sequences, path-like names, symlinks out of the
// folder, oversized files, deep folders); the argument substitution that must not re-read what it put in.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commandInvocation, discoverCommands } from "../../src/commands/catalog.js";
import { COMMAND_MAX_BYTES, parseCommandFile } from "../../src/commands/command-file.js";
import { allowsBang, bangCommands, expandBody, splitArguments } from "../../src/commands/expand.js";
import { SLASH_COMMANDS, findSlash } from "../../src/tui/commands/slash-commands.js";
import { BUILT_IN_COMMAND_NAMES } from "../../src/vocabulary/built-in-commands.js";

/** Claude Code's documentation example ("Create a git commit"), byte for byte. */
const CLAUDE_COMMIT_EXAMPLE = readFileSync(join(import.meta.dirname, "../fixtures/commands/commit.md"), "utf8");

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function world() {
  const root = mkdtempSync(join(tmpdir(), "deerflow-commands-"));
  dirs.push(root);
  const home = join(root, "data");
  const cwd = join(root, "repo", "sub");
  mkdirSync(cwd, { recursive: true });
  const put = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  return { root, home, cwd, put, discover: () => discoverCommands({ home, cwd }) };
}

describe("command files", () => {
  it("reads Claude Code's example unchanged: description, allowed-tools split on commas outside parentheses, the ! commands", () => {
    const c = parseCommandFile(CLAUDE_COMMIT_EXAMPLE);
    expect(c.description).toBe("Create a git commit");
    expect(c.allowedTools).toEqual(["Bash(git add:*)", "Bash(git status:*)", "Bash(git commit:*)"]);
    expect(bangCommands(c.body)).toEqual(["git status", "git diff HEAD", "git branch --show-current", "git log --oneline -10"]);
    expect(allowsBang(c.allowedTools)).toBe(true);
  });

  it("takes a file without front matter (description: its first line) and argument-hint; strips escape sequences", () => {
    expect(parseCommandFile("Explain this code simply.\n\nMore.").description).toBe("Explain this code simply.");
    const c = parseCommandFile('---\ndescription: "\x1b]0;pwned\x07Fix \x1b[31missue\x1b[0m"\nargument-hint: "[pr-number] [priority]"\nmodel: gpt-4.1\n---\nFix $1');
    expect(c).toMatchObject({ description: "Fix issue", argumentHint: "[pr-number] [priority]", model: "gpt-4.1", body: "Fix $1" });
    expect(() => parseCommandFile("---\ndescription: x\n---\n")).toThrow(/empty/);
    // Claude Code's examples leave the hint unquoted (YAML would refuse it, or read "[message]" as a list).
    expect(parseCommandFile("---\nargument-hint: [pr-number] [priority] [assignee]\ndescription: Review pull request\n---\nReview PR #$1").argumentHint).toBe("[pr-number] [priority] [assignee]");
    expect(parseCommandFile("---\nargument-hint: [message]\n---\nCommit: $ARGUMENTS").argumentHint).toBe("[message]");
    expect(parseCommandFile("---\ndescription: d\n---\nargument-hint: [x] [y]").body).toBe("argument-hint: [x] [y]");
    expect(() => parseCommandFile("---\ndescription: a\ndescription: b\n---\nbody")).toThrow(/not valid YAML/);
  });
});

describe("arguments", () => {
  it("puts in $ARGUMENTS and $1…$9 (quotes group words), once: an argument holding $2 or a ! command stays text", () => {
    expect(splitArguments(`123 "high priority" 'x y'`)).toEqual(["123", "high priority", "x y"]);
    expect(expandBody("Fix issue #$1 with priority $2. All: $ARGUMENTS", `123 "high priority"`)).toBe('Fix issue #123 with priority high priority. All: 123 "high priority"');
    expect(expandBody("Review $1 then $3.", "$2 !`rm -rf ~`")).toBe("Review $2 then -rf.");
    expect(expandBody("Say $ARGUMENTS", "$1 !`id`")).toBe("Say $1 !`id`");
  });

  it("appends the arguments to a body that names none (nothing typed is lost), and leaves $10 and $0 alone", () => {
    expect(expandBody("Review the code.", "focus on auth")).toBe("Review the code.\n\nARGUMENTS: focus on auth");
    expect(expandBody("Review the code.", "")).toBe("Review the code.");
    expect(expandBody("a $0 $10 $1", "x")).toBe("a $0 $10 x");
  });

  it("puts a ! command's output in its place without reading it again", () => {
    expect(expandBody("status: !`git status` then $1", "one", ["$ARGUMENTS !`x`"])).toBe("status: $ARGUMENTS !`x` then one");
  });

  it("lets ! commands run only when allowed-tools names Bash", () => {
    expect(allowsBang(["Bash"])).toBe(true);
    expect(allowsBang(["Read", "Bash(git log:*)"])).toBe(true);
    expect(allowsBang(["Read", "Grep"])).toBe(false);
    expect(allowsBang(["Bashful"])).toBe(false);
    expect(allowsBang([])).toBe(false);
  });
});

describe("discovery", () => {
  it("finds project commands nearest first, then the user's; folders are namespaces; a built-in name is never taken", () => {
    const w = world();
    w.put(join(w.cwd, ".deerflow/commands/review.md"), "---\ndescription: near review\n---\nNEAR");
    w.put(join(w.root, "repo/.deerflow/commands/review.md"), "---\ndescription: far review\n---\nFAR");
    w.put(join(w.root, "repo/.deerflow/commands/git/Commit.md"), CLAUDE_COMMIT_EXAMPLE);
    w.put(join(w.home, "commands/review.md"), "USER");
    w.put(join(w.home, "commands/standup.md"), "Write my standup.");
    w.put(join(w.home, "commands/help.md"), "I am not /help");
    w.put(join(w.home, "commands/notes.txt"), "not a command");
    const cat = w.discover();
    expect(cat.commands.map((c) => [c.name, c.scope, c.body])).toEqual([
      ["review", "project", "NEAR"],
      ["git:commit", "project", expect.stringContaining("## Context")],
      ["standup", "user", "Write my standup."],
    ]);
    expect(cat.problems.join("\n")).toMatch(/help\.md: skipped \(\/help is a built-in command\)/);
    expect(commandInvocation("/Git:Commit  now please", cat)).toMatchObject({ command: { name: "git:commit" }, args: "now please" });
    expect(commandInvocation("/nope x", cat)).toBeUndefined();
  });

  it("refuses hostile files: odd names, a symlink out of the folder, an oversized file; symlinked and deep folders are not walked", () => {
    const w = world();
    const dir = join(w.cwd, ".deerflow/commands");
    w.put(join(dir, "\x1b[2Jevil.md"), "x");
    w.put(join(dir, "dot.name.md"), "x");
    w.put(join(w.root, "secret.txt"), "SECRET-CONTENT");
    symlinkSync(join(w.root, "secret.txt"), join(dir, "leak.md"));
    w.put(join(dir, "big.md"), "x".repeat(COMMAND_MAX_BYTES + 1));
    w.put(join(w.root, "elsewhere/inner.md"), "through a linked folder");
    symlinkSync(join(w.root, "elsewhere"), join(dir, "linked"));
    w.put(join(dir, "a/b/c/deep.md"), "too deep");
    w.put(join(dir, "a/b/ok.md"), "two deep is fine");
    const cat = w.discover();
    expect(cat.commands.map((c) => c.name)).toEqual(["a:b:ok"]);
    const problems = cat.problems.join("\n");
    expect(problems).not.toContain("\x1b");
    expect(problems).toMatch(/is not a command name/);
    expect(problems).toMatch(/leak\.md: it is a symlink that leads outside its commands folder/);
    expect(problems).toMatch(/big\.md: it is \d+ bytes, over the limit/);
    expect(problems).toMatch(/namespaces nest at most 2 deep/);
    expect(JSON.stringify(cat)).not.toContain("SECRET-CONTENT");
  });
});

describe("built-in command names", () => {
  it("are the chat's own slash commands and aliases, so no catalog needs the TUI's registry to know them", () => {
    const registry = [...SLASH_COMMANDS.map((c) => c.name), "quit"].sort();
    expect([...BUILT_IN_COMMAND_NAMES].sort()).toEqual(registry);
    for (const n of BUILT_IN_COMMAND_NAMES) expect(findSlash(n), n).toBeDefined();
  });
});
