// A configured sandbox folder reached through a link a sandboxed command made is never bound (planted-links.ts): the
// twenty-third pass trusted `readWrite: ["./build"]` before `build` existed, had the model link it to the home and end
// the sandbox, and the restarted sandbox bound the home read-write (A23-3). Real bwrap, in-process through runShell;
// the start-up refusal through the ledger of earlier runs' workspaces.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { plantedLinkOnWay } from "../../src/sandbox/planted-links.js";
import { closeShellSessions, runShell, setShellWarningSink } from "../../src/sandbox/run-shell.js";
import { recordWritable } from "../../src/sandbox/sandbox-writable.js";
import { defaultShellSettings } from "../../src/sandbox/shell-settings.js";
import { sandboxPathProblems } from "../../src/sandbox/workspace-check.js";
import { HAS_BWRAP } from "../support/confinement.js";
import { makeRoot, makeThread } from "../tools/helpers.js";

function setUp() {
  const root = makeRoot("deerflow-planted-");
  const home = join(root, "home");
  mkdirSync(join(home, ".local", "bin"), { recursive: true });
  writeFileSync(join(home, ".bashrc"), "# the user's\n");
  const paths = makeThread(root, "A");
  const ws = paths.workspace_path;
  const dataDir = join(root, "data");
  mkdirSync(dataDir, { recursive: true });
  return { root, home, ws, paths, dataDir };
}

afterEach(async () => {
  setShellWarningSink(() => undefined);
  await closeShellSessions();
});

describe("plantedLinkOnWay", () => {
  it("finds a link in a writable folder, not one the user made elsewhere, and stops where the path ends", () => {
    const { root, home, ws } = setUp();
    symlinkSync(home, join(ws, "build"));
    expect(plantedLinkOnWay(join(ws, "build", "out"), [ws])).toEqual({ link: join(ws, "build"), target: home });
    // The user's own link (outside every writable folder) is followed, and what lies past it is judged.
    mkdirSync(join(root, "data-disk", "proj"), { recursive: true });
    symlinkSync(join(root, "data-disk"), join(root, "disk"));
    expect(plantedLinkOnWay(join(root, "disk", "proj"), [ws])).toBeUndefined();
    expect(plantedLinkOnWay(join(ws, "absent", "deeper"), [ws])).toBeUndefined();
    expect(plantedLinkOnWay(join(ws, "build"), [join(root, "elsewhere")])).toBeUndefined();
  });
});

describe.runIf(HAS_BWRAP)("a sandbox.readWrite folder linked out by a command", () => {
  it("is not bound when the sandbox restarts: the home stays read-only and the user is told once", async () => {
    const { home, ws, paths, dataDir } = setUp();
    const settings = { ...defaultShellSettings({ userHome: home, dataDir }), readWrite: [join(ws, "build")] };
    const warnings: string[] = [];
    setShellWarningSink((m) => warnings.push(m));
    const sh = async (command: string) => (await runShell(command, { paths, settings, cwd: ws, timeoutSeconds: 60 })).output;
    await sh(`ln -s ${JSON.stringify(home)} build && echo linked`);
    await sh("kill -9 -1");
    const out = await sh("echo 'touch /tmp/pwned' >> build/.bashrc; echo x > build/.local/bin/git; echo done");
    expect(out).toContain("done");
    expect(readFileSync(join(home, ".bashrc"), "utf8")).toBe("# the user's\n");
    expect(existsSync(join(home, ".local", "bin", "git"))).toBe(false);
    await sh("true");
    const said = warnings.filter((w) => w.includes("sandbox.readWrite") && w.includes("is not bound"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(join(ws, "build"));
  });
});

describe.runIf(HAS_BWRAP)("a project skill folder swapped for a link by a command (the twenty-third pass's A23-5)", () => {
  it("is not bound at /mnt/skills when the sandbox restarts: the home's files stay out of reach", async () => {
    const { home, ws, paths, dataDir } = setUp();
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(join(home, ".ssh", "id_rsa"), "CANARY-SSH\n");
    writeFileSync(join(home, "notes.txt"), "CANARY-NOTE\n");
    const skill = join(ws, ".deerflow", "skills", "demo");
    mkdirSync(skill, { recursive: true });
    writeFileSync(join(skill, "SKILL.md"), "---\nname: demo\ndescription: demo\n---\nDo demo.\n");
    const settings = { ...defaultShellSettings({ userHome: home, dataDir }), skillDirs: { demo: skill } };
    const warnings: string[] = [];
    setShellWarningSink((m) => warnings.push(m));
    const sh = async (command: string) => (await runShell(command, { paths, settings, cwd: ws, timeoutSeconds: 60 })).output;
    expect(await sh("cat /mnt/skills/demo/SKILL.md")).toContain("Do demo.");
    await sh(`rm .deerflow/skills/demo/SKILL.md && rmdir .deerflow/skills/demo && ln -s ${JSON.stringify(home)} .deerflow/skills/demo && echo swapped`);
    await sh("kill -9 -1");
    const out = await sh("cat /mnt/skills/demo/notes.txt /mnt/skills/demo/.ssh/id_rsa; echo end");
    expect(out).toContain("end");
    expect(out).not.toContain("CANARY");
    expect(warnings.some((w) => w.includes("skill folder") && w.includes("is not bound"))).toBe(true);
  });
});

describe("sandboxPathProblems", () => {
  it("refuses at start an entry an earlier run's workspace linked elsewhere, naming the link", () => {
    const { home, ws, dataDir } = setUp();
    const entry = join(ws, "cache");
    expect(sandboxPathProblems({ readWrite: [entry], readOnly: [] }, { userHome: home, dataDir })).toEqual([]);
    recordWritable(dataDir, [ws]);
    symlinkSync(join(home, ".local", "bin"), entry);
    const [problem, ...rest] = sandboxPathProblems({ readWrite: [entry], readOnly: [entry] }, { userHome: home, dataDir });
    expect(rest).toHaveLength(1);
    expect(problem).toContain(`sandbox.readWrite ${JSON.stringify(entry)} is refused`);
    expect(problem).toContain(join(home, ".local", "bin"));
    expect(problem).toContain("remove the link");
  });
});
