// A background job that makes a fresh nested repository with a core.fsmonitor between two guard sweeps and removes it
// before the next (adversarial pass 42, A42c-1: on a fixed beat it was never seen). The workspace's folders are
// watched while jobs run, so a new folder brings the sweep forward: the first short-lived plant is found and the job
// stopped. (The timed sweeps alone, a second apart on average, would miss a 0.2 s plant four times in five.) Real bwrap
// (and the same commands unconfined), real git on the host, in-process. And one that removes its plant the instant a
// check starts (it can see the check's reads) is seen all the same: the repository's config was read as it appeared.
import { existsSync, mkdirSync, renameSync, rmSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { watchedFolders } from "../../src/sandbox/folder-watch.js";
import { closeShellSessions, setShellWarningSink, startBackground } from "../../src/sandbox/run-shell.js";
import { HAS_BWRAP, type Mode } from "../support/confinement.js";
import { gitWorkspace } from "../support/git-workspace.js";
import { until } from "../support/wait.js";

const modes: Mode[] = HAS_BWRAP ? ["bwrap", "fallback"] : ["fallback"];
const savedPath = process.env.PATH;
const said: string[] = [];
setShellWarningSink((m) => said.push(m));
afterEach(async () => {
  await closeShellSessions();
  process.env.PATH = savedPath;
});

/** Five times: a repository `w<i>` with a core.fsmonitor for 0.2 s, then gone for 1.5 s. */
const DODGE = [
  "while [ ! -e go ]; do sleep 0.05; done",
  "for i in 1 2 3 4 5; do",
  "  mkdir -p w$i/.git/objects w$i/.git/refs && echo 'ref: refs/heads/main' > w$i/.git/HEAD",
  "  printf '[core]\\n\\tfsmonitor = touch pwned\\n' > w$i/.git/config",
  "  sleep 0.2; rm -rf w$i; sleep 1.5",
  "done",
  "touch dodged",
].join("\n");

describe.each(modes)("a repository planted between two sweeps (%s)", (mode) => {
  it("is found at its first plant: the new folder brings the sweep forward, and the job is stopped", async () => {
    const { ws, sh, paths, settings } = gitWorkspace("deerflow-folderwatch-", mode);
    await sh("echo ready");
    writeFileSync(join(ws, "dodge.sh"), `${DODGE}\n`);
    let ended: () => void = () => undefined;
    const job = new Promise<void>((r) => (ended = r));
    await startBackground("bash dodge.sh", { paths, settings, cwd: ws, logPath: join(paths.outputs_path, "dodge.log"), onEnd: () => ended() });
    await until(() => watchedFolders() > 0, "the workspace's folders to be watched");
    writeFileSync(join(ws, "go"), "");
    await job; // stopped, not run to its end
    expect(existsSync(join(ws, "dodged"))).toBe(false);
    expect(existsSync(join(ws, "w2"))).toBe(false); // the first plant was the one found
    await until(() => said.some((l) => l.startsWith("deerflow stopped every background job")), "the stop to be said");
    expect(existsSync(join(ws, "pwned"))).toBe(false);
  });

  it("one removed before any check could look is still seen, from its config read as it appeared, and the job is stopped", async () => {
    const { root, ws, sh, paths, settings } = gitWorkspace("deerflow-folderwatch-", mode);
    await sh("echo ready");
    let ended: () => void = () => undefined;
    const job = new Promise<void>((r) => (ended = r));
    await startBackground("sleep 300", { paths, settings, cwd: ws, logPath: join(paths.outputs_path, "sleep.log"), onEnd: () => ended() });
    await until(() => watchedFolders() > 0, "the workspace's folders to be watched");
    // A repository made whole in one step (a rename into the workspace), removed in the same turn of the event loop as
    // deerflow heard of it: no check runs in between (this watch is told after deerflow's, of the same event).
    const prep = join(root, "prep");
    for (const d of ["objects", "refs"]) mkdirSync(join(prep, ".git", d), { recursive: true });
    writeFileSync(join(prep, ".git", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(prep, ".git", "config"), "[core]\n\tfsmonitor = touch pwned\n");
    const remover = watch(ws, (_event, name) => {
      if (name === "w") rmSync(join(ws, "w"), { recursive: true, force: true });
    });
    try {
      renameSync(prep, join(ws, "w"));
      await job; // stopped
    } finally {
      remover.close();
    }
    expect(existsSync(join(ws, "w"))).toBe(false);
    await until(() => said.some((l) => l.includes(`deerflow saw a repository made at ${join(ws, "w")} with core.fsmonitor`)), "the plant to be said");
  });
});
