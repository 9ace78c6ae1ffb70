// A repository's own programs never stand in for the system's (the twelfth adversarial pass): with `.` or
// `./node_modules/.bin` on the user's PATH, a shipped `ls` ran unasked and a shipped `bwrap` made deerflow believe it
// was confined. Nor through a link naming the project, nor from a folder `sandbox.readWrite` makes writable (the
// fourteenth pass's P2, P3). (The supervisor's sweep, run on the host by such a fake, SIGKILLed every process it
// could; its guard — pid 2 of its own namespace, supervisor-source.ts — has no test here: a regression would kill the
// test machine.)
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildTransport } from "../../src/mcp/transport.js";
import { loadMcpSdk } from "../../src/mcp/sdk.js";
import { hostPath } from "../../src/sandbox/env-scrub.js";
import { expandTilde } from "../../src/sandbox/host-git-config.js";
import { closeShellSessions, findBwrap, runShell } from "../../src/sandbox/run-shell.js";
import { defaultShellSettings, shellSettingsFromConfig } from "../../src/sandbox/shell-settings.js";
import { ledgerLimits, notePastWorkspaces, noteSandboxWritable, sandboxWritable } from "../../src/sandbox/sandbox-writable.js";
import { ShadowRepo } from "../../src/snapshots/shadow-repo.js";
import { findRipgrep } from "../../src/tools/ripgrep.js";
import { HAS_BWRAP } from "../support/confinement.js";
import { until } from "../support/wait.js";

/** A folder holding a `bwrap` that leaves a marker when run, then execs the real one (so a probe would pass). */
function fakeBwrap(dir: string, marker: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "bwrap"), `#!/bin/sh\necho ran >> ${marker}\nexec /usr/bin/bwrap "$@"\n`);
  chmodSync(join(dir, "bwrap"), 0o755);
}

describe("the PATH commands and the sandbox are found on", () => {
  it("drops relative, empty and missing entries and folders inside the project", () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "df-hostpath-")));
    for (const d of ["p/x/bin", "p/xy"]) mkdirSync(join(root, d), { recursive: true });
    const path = ["./node_modules/.bin", "/usr/bin", ".", "", join(root, "p/x/bin"), join(root, "p/xy"), join(root, "gone")].join(":");
    expect(hostPath(path, join(root, "p/x"))).toBe(`/usr/bin:${join(root, "p/xy")}`);
    expect(hostPath("/usr/bin:/bin:", "/")).toBe("/usr/bin:/bin");
  });

  it("never takes a bwrap from a relative PATH entry", () => {
    const dir = mkdtempSync(join(tmpdir(), "df-fake-bwrap-"));
    const marker = join(dir, "ran");
    writeFileSync(join(dir, "bwrap"), `#!/bin/sh\necho ran > ${marker}\nexit 0\n`);
    chmodSync(join(dir, "bwrap"), 0o755);
    const relative = join("..", "..", "..", "..", "..", "..", "..", "..", dir); // from any cwd, a relative spelling
    expect(findBwrap(`${relative}:/nonexistent`)).toBeNull();
  });

  it("compares real paths: a PATH entry naming the project through a link is the project's (P2)", () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "df-hostpath-link-")));
    const project = join(root, "project");
    fakeBwrap(join(project, "node_modules", ".bin"), join(root, "ran"));
    symlinkSync(project, join(root, "lp"));
    expect(hostPath(`${join(root, "lp", "node_modules", ".bin")}:/usr/bin`, project)).toBe("/usr/bin");
  });

  it.runIf(HAS_BWRAP)("never runs a bwrap from a sandbox.readWrite folder, nor one linked from there; the system's is found instead (P3)", () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "df-hostpath-rw-")));
    const marker = join(root, "ran");
    fakeBwrap(join(root, "local", "bin"), marker);
    mkdirSync(join(root, "bin"));
    symlinkSync(join(root, "local", "bin", "bwrap"), join(root, "bin", "bwrap"));
    // As a run makes its shell settings from the configuration (`"sandbox": {"readWrite": ["~/.local"]}`).
    shellSettingsFromConfig({
      home: join(root, "data"),
      files: [],
      sandbox: { network: true, readWrite: [join(root, "local")], readOnly: [], passEnv: [], require: false },
      models: {},
      model: null,
    });
    for (const first of [join(root, "local", "bin"), join(root, "bin")]) {
      const found = findBwrap(`${first}:/usr/local/bin:/usr/bin:/bin`);
      expect(found).not.toBeNull();
      expect(realpathSync(found!).startsWith(root)).toBe(false);
    }
    expect(() => realpathSync(marker)).toThrow();
  });
});

describe.runIf(HAS_BWRAP)("the workspaces of earlier runs (the sixteenth pass's P4)", () => {
  it("a bwrap a command wrote into a workspace is never the one found later, in this process or the next (the list in the data directory)", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "df-hostpath-past-")));
    const data = join(root, "data");
    mkdirSync(data);
    const settings = defaultShellSettings({ dataDir: data, userHome: join(root, "home") });
    // A run in ~/dotfiles whose command plants bin/bwrap (any mode may: it is a workspace write).
    const dotfiles = join(root, "dotfiles");
    mkdirSync(dotfiles);
    const paths = { workspace_path: dotfiles, uploads_path: join(root, "u"), outputs_path: join(root, "o") };
    await runShell("mkdir -p bin && printf '#!/bin/sh\\necho ran >> ../ran\\nexec /usr/bin/bwrap \"$@\"\\n' > bin/bwrap && chmod +x bin/bwrap", { paths, settings, cwd: dotfiles, timeoutSeconds: 60 });
    await closeShellSessions();
    expect(existsSync(join(dotfiles, "bin", "bwrap"))).toBe(true);
    const found = findBwrap(`${join(dotfiles, "bin")}:/usr/local/bin:/usr/bin:/bin`);
    expect(found === null || !found.startsWith(root)).toBe(true);
    expect(readFileSync(join(data, "sandbox-workspaces"), "utf8").split("\n")).toContain(dotfiles);
    // The next process reads that list when its settings are made: a folder listed there (and never run in here).
    const other = join(root, "other");
    fakeBwrap(join(other, "bin"), join(root, "ran"));
    writeFileSync(join(data, "sandbox-workspaces"), `${dotfiles}\n${other}\n`);
    shellSettingsFromConfig({ home: data, files: [], sandbox: { network: true, readWrite: [], readOnly: [], passEnv: [], require: false }, models: {}, model: null });
    const next = findBwrap(`${join(other, "bin")}:/usr/local/bin:/usr/bin:/bin`);
    expect(next === null || !next.startsWith(root)).toBe(true);
    expect(existsSync(join(root, "ran"))).toBe(false);
  });
});

describe.runIf(HAS_BWRAP)("the readWrite folders of earlier runs (the seventeenth pass's P5, L7)", () => {
  it("a sandbox.readWrite folder is listed with the workspace; the list is appended to, and keeps a folder absent for now", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "df-hostpath-rw-")));
    const data = join(root, "data");
    mkdirSync(data);
    const unmounted = join(root, "unmounted-disk");
    writeFileSync(join(data, "sandbox-workspaces"), `${unmounted}\n`);
    // A run whose settings (a project's, trusted then; or the user's, trimmed since) let commands write ~/tools.
    const tools = join(root, "tools");
    mkdirSync(tools);
    const ws = join(root, "project");
    mkdirSync(ws);
    const settings = defaultShellSettings({ dataDir: data, userHome: join(root, "home"), readWrite: [tools] });
    const paths = { workspace_path: ws, uploads_path: join(root, "u"), outputs_path: join(root, "o") };
    await runShell(`mkdir -p ${tools}/bin && printf '#!/bin/sh\\necho ran >> ${root}/ran\\nexec /usr/bin/bwrap "$@"\\n' > ${tools}/bin/bwrap && chmod +x ${tools}/bin/bwrap`, {
      paths,
      settings,
      cwd: ws,
      timeoutSeconds: 60,
    });
    await closeShellSessions();
    expect(existsSync(join(tools, "bin", "bwrap"))).toBe(true);
    expect(readFileSync(join(data, "sandbox-workspaces"), "utf8").split("\n")).toEqual([unmounted, ws, tools, ""]);
    const found = findBwrap(`${join(tools, "bin")}:/usr/local/bin:/usr/bin:/bin`);
    expect(found === null || !found.startsWith(root)).toBe(true);
    expect(existsSync(join(root, "ran"))).toBe(false);
  });
});

describe("the list of past writable folders past its read limit (the seventeenth pass's L7)", () => {
  it("its newest folders (at the end) are still read, not the whole list ignored", () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "df-ledger-big-")));
    const newest = join(root, "newest");
    mkdirSync(newest);
    writeFileSync(join(root, "sandbox-workspaces"), `${"/old/folder\n".repeat(50)}${newest}\n`);
    ledgerLimits.bytes = 64;
    try {
      notePastWorkspaces(root);
    } finally {
      ledgerLimits.bytes = 1 << 20;
    }
    expect(sandboxWritable()).toContain(newest);
  });
});

describe("the programs deerflow itself runs by name on the host (the sixteenth pass's M1)", () => {
  /** A project with `node_modules/.bin` on PATH (direnv's `layout node`), where a sandboxed command wrote `name`. */
  function planted(name: string) {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "df-hostprog-")));
    const ws = join(root, "project");
    const bin = join(ws, "node_modules", ".bin");
    mkdirSync(bin, { recursive: true });
    const marker = join(root, "planted-ran");
    writeFileSync(join(bin, name), `#!/bin/sh\necho "$*" >> ${marker}\nexit 1\n`);
    chmodSync(join(bin, name), 0o755);
    return { root, ws, bin, marker };
  }
  const saved = process.env.PATH;
  afterEach(() => {
    process.env.PATH = saved;
  });

  it("the rewind snapshot's git is the system's, not a `git` the project put on PATH", async () => {
    const { ws, bin, marker, root } = planted("git");
    writeFileSync(join(ws, "a.txt"), "a\n");
    process.env.PATH = `${bin}:${saved}`;
    const repo = new ShadowRepo(join(root, "data", "snapshots.git"), ws);
    const snap = await repo.snapshot("before", []);
    expect(snap.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(existsSync(marker)).toBe(false);
  });

  it("grep's and glob's ripgrep is not an `rg` a sandboxed command wrote into the workspace's node_modules/.bin on PATH (the seventeenth pass's M2)", () => {
    const { ws, bin } = planted("rg");
    noteSandboxWritable([ws]); // a sandboxed command ran there
    process.env.PATH = `${bin}:${saved}`;
    expect(findRipgrep()).not.toBe(join(bin, "rg"));
  });

  it("the passwd lookup for a `~user/` path in the user's git config is not a `getent` planted on PATH (the seventeenth pass's L6)", () => {
    const { ws, bin, marker } = planted("getent");
    noteSandboxWritable([ws]);
    process.env.PATH = `${bin}:${saved}`;
    expandTilde("~root/.gitconfig-work");
    expect(existsSync(marker)).toBe(false);
  });

  it("an MCP server's command (`npx`) and setsid are looked up on the filtered PATH: the project's planted one never starts", async () => {
    const { ws, bin, marker, root } = planted("npx");
    // The system's `npx` stand-in: a folder outside the project, after the project's on PATH.
    const sys = join(root, "sys");
    mkdirSync(sys);
    const systemRan = join(root, "system-ran");
    writeFileSync(join(sys, "npx"), `#!/bin/sh\necho "$*" >> ${systemRan}\nexit 1\n`);
    chmodSync(join(sys, "npx"), 0o755);
    process.env.PATH = `${bin}:${sys}:${saved}`;
    const sdk = await loadMcpSdk();
    const server = { command: "npx", args: ["-y", "some-server"], file: join(root, ".deerflowrc") };
    const paths = { workspace_path: ws, uploads_path: join(root, "u"), outputs_path: join(root, "o") };
    const built = buildTransport(sdk, "fs", server, { env: process.env, paths, shell: defaultShellSettings() });
    await built.transport.start().catch(() => undefined);
    await until(() => existsSync(systemRan) || existsSync(marker));
    await built.transport.close().catch(() => undefined);
    expect(readFileSync(systemRan, "utf8")).toContain("-y some-server");
    expect(existsSync(marker)).toBe(false);
  });
});
