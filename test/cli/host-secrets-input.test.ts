// Host secrets that would enter a thread around the sandbox: an attachment (`--upload`, `@path`) is copied into
// uploads/ for the agent, and a --workspace is bound read-write. Secret files, any .deerflowrc, deerflow's data
// directory and the secret directories (~/.ssh) are refused before any thread is made or the model is asked, with
// one line naming the file and why (a hard link too: same device and inode); --allow-dangerous-workspace does not unlock
// them. With and without bubblewrap.
import { describe, expect, it } from "vitest";
import { existsSync, linkSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useE2E } from "../support/e2e.js";
import type { CliResult } from "../support/cli.js";
import { runCli } from "../support/cli-in-process.js";
import { HAS_BWRAP, type Mode, pathWithoutBwrap } from "../support/confinement.js";

const e2e = useE2E();
const KEY = "-----BEGIN OPENSSH PRIVATE KEY----- secret-key-material-77";
const modes: Mode[] = HAS_BWRAP ? ["bwrap", "fallback"] : ["fallback"];

function oneLineRefusal(r: CliResult, ...parts: RegExp[]): void {
  expect(r.exitCode, r.stderr).toBe(2);
  const lines = r.stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  for (const p of parts) expect(lines[0]).toMatch(p);
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  expect(r.stdout + r.stderr).not.toContain("secret-key-material-77");
}

describe.each(modes)("secrets never enter a thread as input (%s)", (mode) => {
  it("refuses @~/.ssh/id_rsa, a symlink or hard link to it, an @.deerflowrc, ~/.vault-token, a database upload, and -w into ~/.ssh or the data directory", async () => {
    const sb = e2e.sandbox();
    mkdirSync(join(sb.userHome, ".ssh"), { recursive: true });
    writeFileSync(join(sb.userHome, ".ssh", "id_rsa"), KEY);
    writeFileSync(join(sb.cwd, ".deerflowrc"), "{}");
    symlinkSync(join(sb.userHome, ".ssh", "id_rsa"), join(sb.cwd, "notes.txt"));
    mkdirSync(join(sb.home, "memory"), { recursive: true });
    writeFileSync(join(sb.home, "deerflow.sqlite"), "");
    writeFileSync(join(sb.cwd, "README.md"), "fine");
    const env = mode === "fallback" ? { PATH: pathWithoutBwrap(sb) } : {};

    // A user typing the secret deliberately learns it was not sent (exit 2), rather than a silent drop.
    oneLineRefusal(await runCli(sb, ["run", "review @~/.ssh/id_rsa and @README.md"], { env }), /Refusing to attach .*\.ssh\/id_rsa/, /inside ~\/\.ssh/);
    oneLineRefusal(await runCli(sb, ["run", "--upload", "notes.txt", "read it"], { env }), /notes\.txt/, /inside ~\/\.ssh/);
    oneLineRefusal(await runCli(sb, ["run", "see @.deerflowrc"], { env }), /\.deerflowrc/, /configuration file/);
    oneLineRefusal(await runCli(sb, ["run", "--upload", join(sb.home, "deerflow.sqlite"), "x"], { env }), /deerflow\.sqlite/, /data directory/);

    for (const dir of [join(sb.userHome, ".ssh"), join(sb.home, "memory"), sb.home]) {
      const r = await runCli(sb, ["run", "-w", dir, "--allow-dangerous-workspace", "hi"], { env });
      oneLineRefusal(r, /Refusing --workspace/, /does not unlock this/);
    }

    // A hard link has no link to follow: it is the same (device, inode) as the secret, so it is refused the same way.
    linkSync(join(sb.userHome, ".ssh", "id_rsa"), join(sb.cwd, "review-notes.md"));
    writeFileSync(join(sb.userHome, ".deerflowrc"), JSON.stringify({ apiKey: "secret-key-material-77" }));
    linkSync(join(sb.userHome, ".deerflowrc"), join(sb.cwd, "settings.json"));
    linkSync(join(sb.home, "deerflow.sqlite"), join(sb.cwd, "data.bin"));
    oneLineRefusal(await runCli(sb, ["run", "summarise @review-notes.md"], { env }), /review-notes\.md/, /hard link to .*\.ssh\/id_rsa/);
    oneLineRefusal(await runCli(sb, ["run", "--upload", "settings.json", "x"], { env }), /settings\.json/, /hard link to ~\/\.deerflowrc/);
    oneLineRefusal(await runCli(sb, ["run", "--upload", "data.bin", "x"], { env }), /data\.bin/, /hard link to .*deerflow\.sqlite/);
    // Files added to the longer hidden list are refused by path too.
    mkdirSync(join(sb.userHome, ".config", "openai"), { recursive: true });
    writeFileSync(join(sb.userHome, ".config", "openai", "key"), KEY);
    writeFileSync(join(sb.userHome, ".vault-token"), KEY);
    oneLineRefusal(await runCli(sb, ["run", "use @~/.vault-token"], { env }), /\.vault-token/, /credentials file/);
    oneLineRefusal(await runCli(sb, ["run", "use @~/.config/openai/key"], { env }), /\.config\/openai\/key/, /inside ~\/\.config\/openai/);

    // Nothing reached the model, no thread was made, nothing was copied.
    expect(e2e.server.requests).toHaveLength(0);
    const threadsDir = join(sb.home, "threads");
    expect(existsSync(threadsDir) ? readdirSync(threadsDir) : []).toEqual([]);
    expect((await runCli(sb, ["threads"], { env })).stdout).toMatch(/No threads yet/);

    // A file that merely has two names of its own is attached as usual (the check compares, it does not guess).
    writeFileSync(join(sb.cwd, "a.txt"), "plain words 31");
    linkSync(join(sb.cwd, "a.txt"), join(sb.cwd, "b.txt"));
    e2e.server.setScript(() => ({ content: "attached fine" }));
    const plain = await runCli(sb, ["run", "--upload", "b.txt", "--no-memory", "read it"], { env });
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stdout).toContain("attached fine");
  });
});

describe("the model endpoint's base URL", () => {
  it("a value that is not a URL, or one with credentials, is a config error before any thread is made", async () => {
    const sb = e2e.sandbox();
    const bad = await runCli(sb, ["run", "hi"], { env: { OPENAI_BASE_URL: "notaurl" } });
    oneLineRefusal(bad, /base URL of model "test-model" is not a URL: "notaurl"/, /OPENAI_BASE_URL/);
    const url = new URL(e2e.server.url);
    const creds = await runCli(sb, ["run", "hi"], { env: { OPENAI_BASE_URL: `${url.protocol}//alice:hunter2-pw@${url.host}${url.pathname}` } });
    oneLineRefusal(creds, /credentials in the URL are not supported/, /OPENAI_API_KEY/);
    expect(creds.stderr).not.toContain("hunter2-pw");
    expect(e2e.server.requests).toHaveLength(0);
    expect((await runCli(sb, ["threads"])).stdout).toMatch(/No threads yet/);
  });
});
