// End to end in a real terminal: `/rewind` lists the thread's runs and puts the files and the conversation back to
// before the last one, in a bound git repository whose own .git stays exactly as it was.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { userTexts } from "../support/requests.js";
import { submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

// GIT_OPTIONAL_LOCKS=0: our own `git status` must not refresh the index it is checking.
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@x", ...args], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH!, GIT_CONFIG_NOSYSTEM: "1", GIT_OPTIONAL_LOCKS: "0", HOME: cwd },
  });

function dirHash(dir: string): string {
  const h = createHash("sha256");
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      h.update(relative(dir, p));
      if (lstatSync(p).isDirectory()) walk(p);
      else h.update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest("hex");
}

/** Generous: the machine is shared, and a run here snapshots a repository with real git processes. */
const LONG = { timeoutMs: 60_000 };

const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: "bash", args: { description: "edit", command } }] });

describe("/rewind", () => {
  it("lists the runs and restores the file changed in the last run and the conversation; the repository's .git is untouched", async () => {
    const sb = e2e.sandbox();
    const repo = join(sb.userHome, "repo");
    mkdirSync(repo);
    git(repo, "init", "-q");
    writeFileSync(join(repo, "app.js"), "v1\n");
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "init");
    writeFileSync(join(repo, "app.js"), "v1 with a local edit\n");
    const status = git(repo, "status", "--porcelain");
    const gitHash = dirHash(join(repo, ".git"));

    e2e.server.push(bash("b1", "printf 'first run\\n' > first.txt"), { content: "Made first.txt." });
    e2e.server.push(bash("b2", "printf 'v2\\n' > app.js"), { content: "Rewrote app.js as v2." });
    const t = tui.spawn(sb, ["chat", "-w", repo, "--approval", "yolo"], { cols: 120 });
    await waitReady(t, 60_000);
    await submit(t, "create first.txt");
    await t.waitFor("Made first.txt.", LONG);
    await t.waitForGone("Working…", LONG); // the run ends after its answer (its end snapshot)
    await submit(t, "rewrite app.js");
    await t.waitFor("Rewrote app.js as v2.", LONG);
    await t.waitForGone("Working…", LONG); // the run ends after its answer (its end snapshot)
    expect(readFileSync(join(repo, "app.js"), "utf8")).toBe("v2\n");

    await submit(t, "/rewind");
    await t.waitFor(/Runs of this thread, latest first:/, LONG);
    await t.waitFor(/ 1\. \d{4}-\d\d-\d\d [\d:]+ +success +"rewrite app\.js" +· 1 file: app\.js/, LONG);
    await t.waitFor(/ 2\. .*"create first\.txt" +· 1 file: first\.txt/, LONG);

    await submit(t, "/rewind 1");
    await t.waitFor(/Rewound thread \S+ to before run run-\w+ \(1 run undone\): the conversation and 1 file: app\.js restored\./, LONG);
    expect(readFileSync(join(repo, "app.js"), "utf8")).toBe("v1 with a local edit\n");
    expect(readFileSync(join(repo, "first.txt"), "utf8")).toBe("first run\n");
    expect(existsSync(join(repo, "first.txt"))).toBe(true);

    // The conversation continues from before the rewound run.
    e2e.server.push({ content: "Carrying on." });
    await submit(t, "carry on");
    await t.waitFor("Carrying on.", LONG);
    expect(userTexts(e2e.server.requests.at(-1)!)).toEqual(["create first.txt", "carry on"]);

    // And back to before the first run: the repository is as the user left it.
    await submit(t, "/rewind 2 files");
    await t.waitFor(/Rewound thread \S+ to before run run-\w+ \(2 runs undone\): 1 file: first\.txt restored\./, LONG);
    expect(existsSync(join(repo, "first.txt"))).toBe(false);
    expect(git(repo, "status", "--porcelain")).toBe(status);
    expect(dirHash(join(repo, ".git"))).toBe(gitHash);
  }, 300_000);
});
