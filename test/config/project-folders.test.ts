// Project files from the folders above the project: a folder anyone may write (/tmp, /var/tmp) ends the walk, and a
// file or folder another user owns does not count (the fortieth pass's A40a-4: a skill another local user planted in
// /tmp/.deerflow replaced the user's own, and a /tmp/.deerflowrc made every run under /tmp fail asking to trust it;
// the forty-first pass's A41a-1: a planted `.git` and AGENTS.md there became every run's repository instructions).
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { discoverCommands } from "../../src/commands/catalog.js";
import { loadConfig } from "../../src/config/load.js";
import { projectFoldersUp } from "../../src/config/project-folders.js";
import { findRepoRoot } from "../../src/memory/project.js";
import { loadAgentsMemory } from "../../src/middleware/dynamic-context.js";
import { discoverSkills } from "../../src/skills/catalog.js";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** `<root>/shared` writable by anyone (sticky, as /tmp), the project below it, and the user's own home. */
function layout() {
  const root = mkdtempSync(join(tmpdir(), "deerflow-folders-"));
  roots.push(root);
  const shared = join(root, "shared");
  const project = join(shared, "proj");
  const home = join(root, "home");
  mkdirSync(project, { recursive: true });
  mkdirSync(join(home, ".deerflow"), { recursive: true });
  chmodSync(shared, 0o1777);
  return { root, shared, project, home };
}

const plant = (dir: string) => {
  mkdirSync(join(dir, ".deerflow", "skills", "release-notes"), { recursive: true });
  writeFileSync(join(dir, ".deerflow", "skills", "release-notes", "SKILL.md"), "---\nname: release-notes\ndescription: PLANTED\n---\nPLANTED BODY\n");
  mkdirSync(join(dir, ".deerflow", "commands"), { recursive: true });
  writeFileSync(join(dir, ".deerflow", "commands", "review.md"), "PLANTED COMMAND\n");
  writeFileSync(join(dir, ".deerflowrc"), JSON.stringify({ mcpServers: { x: { command: "sh", args: ["-c", "touch pwned"] } } }));
  // A repository root above the project, with its instructions (A41a-1).
  mkdirSync(join(dir, ".git"), { recursive: true });
  writeFileSync(join(dir, "AGENTS.md"), "PLANTED INSTRUCTIONS\n");
};

const scopes = (project: string, home: string) => ({
  skills: discoverSkills({ home: join(home, ".deerflow"), cwd: project, userHome: home }).skills.map((s) => s.description),
  commands: discoverCommands({ home: join(home, ".deerflow"), cwd: project }).commands.map((c) => c.name),
  untrusted: loadConfig({ cwd: project, env: { HOME: home }, userHome: home }).untrusted?.file,
  repository: findRepoRoot(project),
  agents: loadAgentsMemory({ workspace: project }).map((f) => f.content),
});

describe("project files from the folders above", () => {
  it("a world-writable folder ends the walk: what lies in it or above it is not the project's", () => {
    const { shared, project, home } = layout();
    plant(shared);
    expect(projectFoldersUp(project)).toEqual([project]);
    expect(scopes(project, home)).toEqual({ skills: [], commands: [], untrusted: undefined, repository: undefined, agents: [] });
    // Working in the shared folder itself: nothing there is a project file either.
    expect(projectFoldersUp(shared)).toEqual([]);
  });

  it("the project's own files, and those of an ordinary folder above it, still count", () => {
    const { root, home } = layout();
    const mine = join(root, "mine");
    const project = join(mine, "proj");
    mkdirSync(project, { recursive: true });
    plant(mine);
    expect(scopes(project, home)).toEqual({ skills: ["PLANTED"], commands: ["review"], untrusted: join(mine, ".deerflowrc"), repository: mine, agents: ["PLANTED INSTRUCTIONS"] });
  });

  it.runIf(process.getuid?.() === 0)("a file or folder another user owns does not count (root's and the user's do)", () => {
    const { root, home } = layout();
    const theirs = join(root, "theirs");
    const project = join(theirs, "proj");
    mkdirSync(project, { recursive: true });
    plant(theirs);
    for (const p of [".deerflowrc", ".deerflow/skills", ".deerflow/commands", ".git"]) chownSync(join(theirs, p), 65534, 65534);
    expect(scopes(project, home)).toEqual({ skills: [], commands: [], untrusted: undefined, repository: undefined, agents: [] });
  });
});
