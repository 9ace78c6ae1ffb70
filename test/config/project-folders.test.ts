// Project files from the folders above the project: a folder anyone may write (/tmp, /var/tmp) ends the walk, and a
// file or folder another user owns does not count (the fortieth pass's A40a-4: a skill another local user planted in
// /tmp/.deerflow replaced the user's own, and a /tmp/.deerflowrc made every run under /tmp fail asking to trust it;
// the forty-first pass's A41a-1: a planted `.git` and AGENTS.md there became every run's repository instructions).
// The rule holds for each file a loader reads, not only the folder it starts from (the forty-third pass's A43a-1, -2,
// -5: in a group-shared repository another member's AGENTS.md, agent type, skill and command were taken as the
// project's; in a world-writable workspace, its AGENTS.md and agent types).
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
import { loadSubagentRegistry } from "../../src/subagents/registry.js";

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

const agentType = (dir: string, name: string) => {
  mkdirSync(join(dir, ".deerflow", "agents"), { recursive: true });
  writeFileSync(join(dir, ".deerflow", "agents", `${name}.md`), `---\nname: ${name}\ndescription: ${name.toUpperCase()} reviewer\n---\n${name} prompt\n`);
};
const agentTypes = async (cwd: string) => (await loadSubagentRegistry({ cwd })).names().filter((n) => !["general-purpose", "bash"].includes(n));

describe("each project file a loader reads", () => {
  it("a workspace anyone may write: its AGENTS.md and agent types are not the project's", async () => {
    const { shared, home } = layout();
    writeFileSync(join(shared, "AGENTS.md"), "PLANTED INSTRUCTIONS\n");
    agentType(shared, "planted");
    expect(loadAgentsMemory({ workspace: shared }).map((f) => f.content)).toEqual([]);
    expect(await agentTypes(shared)).toEqual([]);
    // The same files in the user's own project count.
    const mine = join(home, "proj");
    mkdirSync(mine);
    writeFileSync(join(mine, "AGENTS.md"), "MY INSTRUCTIONS\n");
    agentType(mine, "mine");
    expect(loadAgentsMemory({ workspace: mine }).map((f) => f.content)).toEqual(["MY INSTRUCTIONS"]);
    expect(await agentTypes(mine)).toEqual(["mine"]);
  });

  it.runIf(process.getuid?.() === 0)("in a shared repository, what another user adds inside the user's own folders is skipped and said", async () => {
    const { root, home } = layout();
    const repo = join(root, "repo");
    mkdirSync(join(repo, ".git"), { recursive: true });
    plant(repo); // the user's own: AGENTS.md, the release-notes skill, /review
    agentType(repo, "mine");
    // Another member of the group adds files of their own in the user's group-writable folders.
    writeFileSync(join(repo, "AGENTS.md"), "THEIR INSTRUCTIONS\n");
    mkdirSync(join(repo, ".deerflow", "skills", "evil"));
    writeFileSync(join(repo, ".deerflow", "skills", "evil", "SKILL.md"), "---\nname: evil\ndescription: THEIR SKILL\n---\nbody\n");
    writeFileSync(join(repo, ".deerflow", "commands", "topcmd.md"), "THEIR COMMAND\n");
    mkdirSync(join(repo, ".deerflow", "commands", "ns"));
    agentType(repo, "theirs");
    const other = ["AGENTS.md", ".deerflow/skills/evil", ".deerflow/skills/evil/SKILL.md", ".deerflow/commands/topcmd.md", ".deerflow/commands/ns", ".deerflow/agents/theirs.md"];
    for (const p of other) chownSync(join(repo, p), 65534, 65534);
    // Their SKILL.md in the user's own skill folder is refused too (a file swapped in).
    mkdirSync(join(repo, ".deerflow", "skills", "swapped"));
    writeFileSync(join(repo, ".deerflow", "skills", "swapped", "SKILL.md"), "---\nname: swapped\ndescription: SWAPPED\n---\nbody\n");
    chownSync(join(repo, ".deerflow", "skills", "swapped", "SKILL.md"), 65534, 65534);

    const skills = discoverSkills({ home: join(home, ".deerflow"), cwd: repo, userHome: home });
    expect(skills.skills.map((s) => s.description)).toEqual(["PLANTED"]);
    expect(skills.problems.join("\n")).toMatch(/evil\/SKILL\.md: it belongs to another user/);
    expect(skills.problems.join("\n")).toMatch(/swapped\/SKILL\.md: it belongs to another user/);
    const commands = discoverCommands({ home: join(home, ".deerflow"), cwd: repo });
    expect(commands.commands.map((c) => c.name)).toEqual(["review"]);
    expect(commands.problems.join("\n")).toMatch(/topcmd\.md: it belongs to another user/);
    expect(commands.problems.join("\n")).toMatch(/ns: skipped \(it belongs to another user/);
    expect(loadAgentsMemory({ workspace: repo }).map((f) => f.content)).toEqual([]);
    expect(await agentTypes(repo)).toEqual(["mine"]);
  });
});
