// The sandbox's edges through `deerflow run` with bubblewrap: with the network off, no host Unix socket is reachable
// (real listening servers the test starts in /run and in /var/tmp, one bound between two commands of a run, and the
// local PostgreSQL socket when the suite's server is up), while the same probes connect with the network on; the
// credential files and shell histories of the home are empty to commands.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { type Server, createServer } from "node:net";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HAS_BWRAP, pathWithoutBwrap, toolResults } from "../support/confinement.js";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import { trustProject } from "../support/trust.js";

const e2e = useE2E();
const servers: Server[] = [];
const madeDirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  for (const d of madeDirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function listen(path: string): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  const srv = createServer((c) => c.on("error", () => {}).end("hello\n")); // the probe hangs up at once
  servers.push(srv);
  await new Promise<void>((resolve, reject) => srv.listen(path, resolve).on("error", reject));
}

/** A command printing `CONNECTED <path>` or `BLOCKED <code> <path>` for each socket path. */
function probe(paths: string[]): string {
  const js = `for (const p of ${JSON.stringify(paths)}) require('net').connect(p).on('connect',function(){console.log('CONNECTED '+p);this.destroy()}).on('error',(e)=>console.log('BLOCKED '+e.code+' '+p))`;
  return `node -e ${JSON.stringify(js)}`;
}

const PG_SOCKET = "/var/run/postgresql/.s.PGSQL.5432";

describe.runIf(HAS_BWRAP)("the sandbox's edges (bwrap)", () => {
  it("a bound repository's git config and hooks are read-only inside: spellings the audit cannot read fail, git itself still commits", async () => {
    const sb = e2e.sandbox();
    const repo = join(sb.cwd, "repo");
    mkdirSync(repo);
    const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" });
    git("init", "-q");
    writeFileSync(join(repo, "a.txt"), "one\n");
    git("-c", "user.name=u", "-c", "user.email=u@x", "add", "a.txt");
    git("-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "one");
    const config = readFileSync(join(repo, ".git", "config"), "utf8");
    const marker = join(sb.userHome, "RAN_ON_HOST");
    e2e.server.push(
      {
        toolCalls: [
          // A name the audit cannot read (a glob such as .gi? it now reads as git's own: A27-8), and a template that
          // copies a hook in (the second adversarial pass).
          { id: "glob", name: "bash", args: { command: `d=.gi; printf '[core]\\n\\tfsmonitor = touch ${marker}\\n' >> \${d}t/config; echo rc=$?` } },
          {
            id: "tpl",
            name: "bash",
            args: { command: `mkdir -p tpl/hooks && printf '#!/bin/sh\\ntouch ${marker}\\n' > tpl/hooks/post-commit && chmod +x tpl/hooks/post-commit && git init -q --template=tpl; echo rc=$?` },
          },
          // Rename the repository away and put a writable copy with a planted config in its place (the fourth pass).
          {
            id: "swap",
            name: "bash",
            args: { command: `n=.gi; mv \${n}t .gx; echo mv=$?; cp -a \${n}t .gy; printf '[core]\\n\\tfsmonitor = touch ${marker}\\n' >> .gy/config; mv .gy \${n}t; echo swap=$?` },
          },
          { id: "commit", name: "bash", args: { command: "echo two >> a.txt && git -c user.name=u -c user.email=u@x commit -qam two && git log --oneline | wc -l" } },
        ],
      },
      { content: "done" },
    );
    const r = await sb.run(["run", "-w", repo, "go"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = toolResults(e2e.server.requests[1]!);
    // stdout and stderr interleave in either order.
    expect(out.glob).toContain("Read-only file system");
    expect(out.glob).toContain("rc=1");
    // .git is a mount point: it cannot be renamed away (the copy then only lands inside it, as .git/.gy).
    expect(out.swap).toMatch(/cannot move '\.git'.*busy/i);
    expect(out.swap).toContain("mv=1");
    expect(out.commit!.trim().split("\n")[0]).toBe("2");
    // The copy that landed inside .git (.git/.gy) is a repository with a planted fsmonitor: the guard takes it out. The
    // batch's commands run at once, so its line follows whichever command ends after the copy was made.
    expect(Object.values(out).join("\n")).toMatch(/deerflow removed core\.fsmonitor from \S*\/\.git\/\.gy\/config/);
    expect(readFileSync(join(repo, ".git", "config"), "utf8")).toBe(config);
    expect(existsSync(join(repo, ".git", "hooks", "post-commit"))).toBe(false);
    // The user's own git on the host runs nothing planted.
    writeFileSync(join(repo, "a.txt"), "three\n");
    git("status", "--short");
    git("-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qam", "three");
    expect(existsSync(marker)).toBe(false);
  }, 150_000);

  it('network off or proxied: host Unix sockets in /run, in /var/tmp and PostgreSQL\'s are unreachable; "host", they connect', async () => {
    const sb = e2e.sandbox();
    // One where services keep sockets (/run), one anywhere else on the host disk (the test's home is under /tmp,
    // which the sandbox replaces anyway): found through /proc/net/unix.
    const runDir = `/run/deerflow-test-${process.pid}-${Date.now()}`;
    const elsewhere = `/var/tmp/deerflow-test-${process.pid}-${Date.now()}`;
    madeDirs.push(runDir, elsewhere);
    const paths = [join(runDir, "app.sock"), join(elsewhere, "share", "agent.sock")];
    for (const p of paths) await listen(p);
    if (existsSync(PG_SOCKET)) paths.push(PG_SOCKET);

    e2e.server.push({ toolCalls: [{ id: "off", name: "bash", args: { command: probe(paths) } }] }, { content: "ok" });
    // The probe is inline code that connects, which the audit asks about: approved (the sandbox is under test).
    const off = await sb.run(["run", "--no-network", "--yes", "probe"]);
    expect(off.exitCode, off.stderr).toBe(0);
    const blocked = toolResults(e2e.server.requests[1]!).off!;
    for (const p of paths) expect(blocked, p).toMatch(new RegExp(`BLOCKED \\S+ ${p.replace(/\./g, "\\.")}`));
    expect(blocked).not.toContain("CONNECTED");

    // The network on (proxied) hides them too: a host service's socket is what its loopback port is.
    e2e.server.requests.length = 0;
    e2e.server.push({ toolCalls: [{ id: "on", name: "bash", args: { command: probe(paths) } }] }, { content: "ok" });
    const proxied = await sb.run(["run", "--yes", "probe"]);
    expect(proxied.exitCode, proxied.stderr).toBe(0);
    const hidden = toolResults(e2e.server.requests[1]!).on!;
    for (const p of paths) expect(hidden, p).toMatch(new RegExp(`BLOCKED \\S+ ${p.replace(/\./g, "\\.")}`));
    // The control: the same probe with the host's network (the user's `sandbox.network: "host"`) reaches every one.
    writeFileSync(join(sb.userHome, ".deerflowrc"), JSON.stringify({ sandbox: { network: "host" } }));
    e2e.server.requests.length = 0;
    e2e.server.push({ toolCalls: [{ id: "on", name: "bash", args: { command: probe(paths) } }] }, { content: "ok" });
    const on = await sb.run(["run", "--yes", "probe"]);
    expect(on.exitCode, on.stderr).toBe(0);
    const reached = toolResults(e2e.server.requests[1]!).on!;
    for (const p of paths) expect(reached, p).toContain(`CONNECTED ${p}`);
  });

  it("network off: a host socket bound after the sandbox started (between two commands) is unreachable too", async () => {
    const sb = e2e.sandbox();
    const late = `/var/tmp/deerflow-late-${process.pid}-${Date.now()}`;
    madeDirs.push(late);
    const path = join(late, "late.sock");
    // The first command starts the thread's sandbox; the socket is bound once its result is back, before the second.
    e2e.server.setScript(async (_req, i) => {
      if (i === 0) return { toolCalls: [{ id: "start", name: "bash", args: { command: "echo started" } }] };
      if (i === 1) {
        await listen(path);
        return { toolCalls: [{ id: "late", name: "bash", args: { command: probe([path]) } }] };
      }
      return { content: "ok" };
    });
    const r = await sb.run(["run", "--no-network", "--yes", "probe twice"]); // the probe connects: approved
    expect(r.exitCode, r.stderr).toBe(0);
    const results = toolResults(e2e.server.requests.at(-1)!);
    expect(results.start).toContain("started");
    expect(results.late).toMatch(/BLOCKED \S+ /);
    expect(results.late).not.toContain("CONNECTED");
  });

  it("credential files and shell histories in the home read as empty; ~/.config/hub as a directory is emptied", async () => {
    const sb = e2e.sandbox();
    const secretFiles = [
      ".vault-token",
      ".config/rclone/rclone.conf",
      ".m2/settings.xml",
      ".gradle/gradle.properties",
      ".config/openai/key",
      ".env",
      ".bash_history",
      ".zsh_history",
      ".python_history",
      ".node_repl_history",
      ".psql_history",
      ".mysql_history",
    ];
    for (const f of [...secretFiles, ".config/hub/hosts.yml"]) {
      mkdirSync(dirname(join(sb.userHome, f)), { recursive: true });
      writeFileSync(join(sb.userHome, f), `SECRET-${f}\n`);
    }
    const command = [...secretFiles, ".config/hub/hosts.yml"].map((f) => `cat ~/${f} 2>&1`).join("; ") + "; echo end";
    e2e.server.push({ toolCalls: [{ id: "read", name: "bash", args: { command } }] }, { content: "ok" });
    const r = await sb.run(["run", "read secrets"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = toolResults(e2e.server.requests[1]!).read!;
    expect(out).toContain("end");
    expect(out).not.toContain("SECRET-");
  });
});

describe("sandbox paths that break or open the sandbox", () => {
  it("readWrite /, a system directory, the home or the data directory, and readOnly / or /proc: run exits 2 with one line; doctor says ✗", async () => {
    const sb = e2e.sandbox();
    const cases: [Record<string, string[]>, RegExp][] = [
      [{ readWrite: ["/"] }, /^deerflow: sandbox\.readWrite "\/" is refused: \/ is a system directory, and commands would get all of it read-write\. List project directories only/],
      [{ readWrite: ["/etc"] }, /sandbox\.readWrite "\/etc" is refused: \/etc is a system directory/],
      [{ readWrite: ["~"] }, /sandbox\.readWrite "\/\S+\/user" is refused: \S+ is your home directory/],
      [{ readWrite: [join(sb.home, "memory")] }, /is refused: .* is inside deerflow's data directory/],
      [{ readOnly: ["/"] }, /sandbox\.readOnly "\/" is refused: \/ would cover the sandbox's own \/proc/],
      [{ readOnly: ["/proc/self"] }, /sandbox\.readOnly "\/proc\/self" is refused/],
    ];
    mkdirSync(join(sb.home, "memory"), { recursive: true });
    for (const [sandbox, line] of cases) {
      writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ sandbox }));
      trustProject(sb); // the user's own trusted setting is what is refused here (an untrusted one is ignored)
      // The first case through the built CLI (exit code, the one line a terminal shows); the others in-process.
      const r = sandbox === cases[0]![0] ? await sb.run(["run", "hi"]) : await runCli(sb, ["run", "hi"]);
      expect(r.exitCode, JSON.stringify(sandbox)).toBe(2);
      expect(r.stderr.trim().split("\n"), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(line);
    }
    expect(e2e.server.requests).toHaveLength(0);
    const doctor = await runCli(sb, ["doctor"]);
    expect(doctor.exitCode).toBe(1);
    expect(doctor.stdout).toMatch(/^✗ sandbox +sandbox\.readOnly "\/proc\/self" is refused/m);
  });

  it("doctor's sandbox check runs a real command: a bubblewrap that starts but fails with these settings is ✗, not 'works'", async () => {
    const sb = e2e.sandbox();
    // In-process (bwrap is looked up per PATH); the broken bwrap below is a process of its own, so no shell session
    // started here can stand in for it.
    const ok = await runCli(sb, ["doctor"]);
    if (HAS_BWRAP) expect(ok.stdout).toMatch(/^✓ sandbox +bubblewrap works/m);
    else expect(ok.stdout).toMatch(/^! sandbox +bubblewrap \(bwrap\) is not available/m);
    // Without bwrap, the command runs on the host: it works, and doctor warns.
    const fallback = await runCli(sb, ["doctor"], { env: { PATH: pathWithoutBwrap(sb) } });
    expect(fallback.stdout).toMatch(/^! sandbox +bubblewrap \(bwrap\) is not available/m);
    if (!HAS_BWRAP) return;
    // The probe (a bare sandbox) passes; the session with deerflow's settings does not start.
    const shim = join(sb.userHome, "..", "picky-bwrap");
    mkdirSync(shim, { recursive: true });
    writeFileSync(
      join(shim, "bwrap"),
      '#!/bin/sh\ncase " $* " in *" --die-with-parent "*) echo "bwrap: Can\'t mount tmpfs on /run: Operation not permitted" >&2; exit 1;; esac\nexec /usr/bin/bwrap "$@"\n',
      { mode: 0o755 },
    );
    const broken = await sb.run(["doctor"], { env: { PATH: `${shim}:${sb.env.PATH}` } });
    expect(broken.exitCode).toBe(1);
    expect(broken.stdout).toMatch(/^✗ sandbox +a shell command fails with these settings: .*Can't mount tmpfs on \/run/m);
  });
});
