// The glob matcher of the glob and grep tools (fs-common.ts globToRegExp) against minimatch (npm's matcher, bash's
// rules: `[!…]` negates, `[]]` holds a `]`): the same answer for every glob and path below (dotfiles included: the
// tools match them, so `dot: true`). picomatch is not the oracle: it reads `[!a-c]` as a class holding "!".
// It stays hand-written for one reason (see its comment): its regexes run on V8's linear engine.
import { minimatch } from "minimatch";
import { describe, expect, it } from "vitest";
import { globToRegExp } from "../../src/tools/fs-common.js";

const GLOBS = ["*.ts", "**/*.ts", "src/**", "src/**/*.test.ts", "?x", "[]]x", "[!]]x", "[a-c]*", "[!a-c]*", "a\\*b", "a\\?b", "{a,b}/*.md", "**", "*", "a/**/b", "x[^y]z", ".*", "[\\]]x"];
const PATHS = [
  "a.ts",
  "src/a.ts",
  "src/deep/b.test.ts",
  "ax",
  "]x",
  "bx",
  "a*b",
  "axb",
  "a?b",
  "a/x.md",
  "b/y.md",
  "c/z.md",
  "a/b",
  "a/q/r/b",
  "xyz",
  "xaz",
  ".env",
  "src/.hidden.ts",
  "README.md",
  "b",
  "d",
];

describe("globToRegExp agrees with minimatch", () => {
  it.each(GLOBS)("%j", (glob) => {
    const ours = globToRegExp(glob);
    const differ = PATHS.filter((p) => ours.test(p) !== minimatch(p, glob, { dot: true }));
    expect(differ).toEqual([]);
  });
});
