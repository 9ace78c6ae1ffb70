// Folders another user could replace: one who may write a folder above the workspace renames it and puts a link to
// the user's home in its place, between two runs or during one; the next run, a rewind, the hooks and the sandbox's
// configured binds then reached the home by the path (the forty-fifth pass's A45a-1..4). Such a workspace is refused
// with one line; a folder only the user (or root), or a sticky folder such as /tmp, holds is used. Real files.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { closeChatShell, createChatSession } from "../../src/runtime/chat-session.js";
import { hookSetupOf } from "../../src/runtime/hook-setup.js";
import { takeRefusedBinds, withoutReplaceable } from "../../src/sandbox/planted-links.js";
import { replaceableBy } from "../../src/sandbox/replaceable-folders.js";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import { useInProcessModel } from "../support/in-process.js";
import { everythingStdio, writeRc } from "../support/mcp.js";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** `<root>/<name>` with `mode`, and a folder `pkg` in it (the user's own, 0755). */
function under(name: string, mode: number) {
  const root = mkdtempSync(join(tmpdir(), "deerflow-replaceable-"));
  roots.push(root);
  const parent = join(root, name);
  mkdirSync(join(parent, "pkg"), { recursive: true });
  chmodSync(parent, mode);
  return { root, parent, pkg: join(parent, "pkg") };
}

describe("who could replace a folder", () => {
  it("a folder above it that anyone may write, without the sticky bit: yes; with it (as /tmp): no", () => {
    expect(replaceableBy(under("open", 0o777).pkg)).toMatch(/^anyone may write .*\/open$/);
    expect(replaceableBy(under("sticky", 0o1777).pkg)).toBeUndefined();
    expect(replaceableBy(under("mine", 0o755).pkg)).toBeUndefined();
  });

  it.runIf(process.getuid?.() === 0)("a folder above it a group with another member may write, or another user owns: yes", () => {
    const shared = under("shared", 0o775);
    chownSync(shared.parent, 0, 65534); // nogroup: nobody's primary group
    expect(replaceableBy(shared.pkg)).toMatch(/^its group \(.+\) may write .*\/shared$/);
    const theirs = under("theirs", 0o755);
    chownSync(theirs.parent, 65534, 65534);
    expect(replaceableBy(theirs.pkg)).toMatch(/theirs belongs to another user$/);
    // root's own group, with no other member: no.
    expect(replaceableBy(under("rootgroup", 0o775).pkg)).toBeUndefined();
    // The folder itself another user's, in a sticky folder: its owner may rename it there (A46a-1).
    const sticky = under("sticky2", 0o1777);
    chownSync(sticky.pkg, 65534, 65534);
    expect(replaceableBy(sticky.pkg)).toMatch(/pkg belongs to another user$/);
  });

  it("a path already swapped for a link is judged by its own folders, not only by where it now leads (A46a-2)", () => {
    const { root, pkg } = under("open4", 0o777);
    const mine = join(root, "private");
    mkdirSync(mine, { mode: 0o700 });
    renameSync(pkg, `${pkg}-orig`);
    symlinkSync(mine, pkg);
    expect(replaceableBy(mine)).toBeUndefined();
    expect(replaceableBy(pkg)).toMatch(/^anyone may write .*open4$/);
    takeRefusedBinds();
    expect(withoutReplaceable([pkg], "sandbox.readWrite")).toEqual([]);
  });

  it("a configured folder another user could replace is not bound, and the user is told once", () => {
    const { pkg } = under("open2", 0o777);
    takeRefusedBinds();
    expect(withoutReplaceable([pkg], "sandbox.readWrite")).toEqual([]);
    expect(takeRefusedBinds()).toEqual([expect.stringMatching(/^sandbox\.readWrite ".*pkg" could be replaced by another user \(anyone may write .*\): .* does not use it\./)]);
  });

  it("hooks do not run in a folder another user could replace: the run stops with one line", () => {
    const { pkg } = under("open3", 0o777);
    const config = { ...loadConfig({ cwd: pkg, env: { HOME: pkg }, userHome: pkg }), hooks: [{ event: "Stop", command: "true", timeoutSeconds: 5 }] } as never;
    expect(() => hookSetupOf(config)).toThrow(/The folder your hooks run in, .*pkg, could be replaced by another user \(anyone may write/);
  });
});

describe("a workspace another user could replace", () => {
  const env = useInProcessModel("deerflow-replaceable-run-", closeChatShell);

  it("is refused before anything runs; one the user alone holds is used, and a rewind of it after a swap is refused", async () => {
    const { server, home, root } = env();
    const open = join(root, "open");
    mkdirSync(join(open, "pkg"), { recursive: true });
    chmodSync(open, 0o777);
    server.setScript([{ content: "never" }]);
    const refused = createChatSession({ home, model: "test-model", cwd: join(open, "pkg"), workspace: join(open, "pkg"), approval: "yolo" });
    await expect(refused.send({ prompt: "go" }, () => {}, new AbortController().signal)).rejects.toThrow(/The workspace .*pkg could be replaced by another user \(anyone may write/);
    expect(server.requests).toHaveLength(0);

    // The user's own folder: runs; then it is swapped for a link (as root could, or the user by mistake): a rewind of
    // its files is refused, never written through the link.
    const mine = join(root, "mine");
    mkdirSync(join(mine, "pkg"), { recursive: true });
    server.setScript([{ toolCalls: [{ name: "write_file", args: { path: "/mnt/user-data/workspace/a.txt", content: "x\n" } }] }, { content: "done" }]);
    const s = createChatSession({ home, model: "test-model", cwd: join(mine, "pkg"), workspace: join(mine, "pkg"), approval: "yolo" });
    await s.send({ prompt: "write" }, () => {}, new AbortController().signal);
    const victim = join(root, "victim");
    mkdirSync(victim);
    renameSync(join(mine, "pkg"), join(mine, "pkg-orig"));
    symlinkSync(victim, join(mine, "pkg"));
    const back = (await s.rewindable()).find((r) => r.input === "write")!.back;
    await expect(s.rewind(back, "files")).rejects.toThrow(/it now leads elsewhere/);
    // Nor does the thread's next run work there (A46a-3): refused before any model call, nothing written.
    const before = server.requests.length;
    await expect(s.send({ prompt: "again" }, () => {}, new AbortController().signal)).rejects.toThrow(/The workspace .*pkg could be replaced by another user \(it now leads elsewhere/);
    expect(server.requests).toHaveLength(before);
    expect(readdirSync(victim)).toEqual([]);
  });
});

describe("an MCP server that would start in a folder another user could replace", () => {
  const e2e = useE2E();
  it("is not started: listed as failed with the line, the other servers unaffected (A46a-4)", async () => {
    const sb = e2e.sandbox();
    const open = join(sb.cwd, "..", "open-mcp");
    mkdirSync(join(open, "srv"), { recursive: true });
    chmodSync(open, 0o777);
    writeFileSync(join(open, "srv", "marker.js"), "require('fs').writeFileSync(process.env.HOME + '/ran', 'x')\n");
    writeRc(sb, { swapped: { command: process.execPath, args: ["marker.js"], cwd: join(open, "srv") }, everything: everythingStdio() });
    const r = await runCli(sb, ["mcp", "list", "--json"]);
    const list = JSON.parse(r.stdout) as { name: string; status: string; error?: string }[];
    const swapped = list.find((x) => x.name === "swapped")!;
    expect(swapped.status).toBe("failed");
    expect(JSON.stringify(swapped)).toMatch(/mcpServers\.swapped starts in .*srv, which could be replaced by another user \(anyone may write/);
    expect(list.find((x) => x.name === "everything")!.status).toBe("ready");
  });
});
