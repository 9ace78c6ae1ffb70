// The quick read of a git config's keys that the folder watch uses the moment a repository appears (folder-watch.ts):
// git's own syntax for sections, subsections, keys alone, comments and a key on the section's line.
import { describe, expect, it } from "vitest";
import { configTextKeys } from "../../src/sandbox/config-text-keys.js";

describe("configTextKeys", () => {
  it("names each key as git lists it", () => {
    const text = [
      "# a comment",
      "[core]",
      "\trepositoryformatversion = 0",
      "\tFsMonitor = touch pwned",
      '[remote "origin"]',
      "\turl = https://example.com/x.git",
      '[includeIf "gitdir:~/work/"]',
      "\tpath = other.config",
      "[alias] st = !sh -c x",
      "[core.hooks]",
      "\tenabled",
      "; another comment",
      "[status]showUntrackedFiles=no",
    ].join("\n");
    expect(configTextKeys(text)).toEqual([
      "core.repositoryformatversion",
      "core.fsmonitor",
      "remote.origin.url",
      "includeif.gitdir:~/work/.path",
      "alias.st",
      "core.hooks.enabled",
      "status.showuntrackedfiles",
    ]);
  });

  it("finds nothing before a section, nor in a value", () => {
    expect(configTextKeys('fsmonitor = x\n[core]\n\teditor = "vim # [alias] x = y"')).toEqual(["core.editor"]);
  });
});
