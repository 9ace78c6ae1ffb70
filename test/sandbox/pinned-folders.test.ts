// A folder judged once and used later by its path: another user who may write the folder above the workspace (a
// group-shared repository, the user working in a package folder of it) renamed it while deerflow ran and put a link
// to the user's home in its place; the file tools wrote into the home, and a skill folder swapped the same way had the
// sandbox bind the home at /mnt/skills/<name> (the forty-fourth pass's A44a-3 and A44a-4). Real runtime against the
// loopback test model, real bwrap, in-process.
import { existsSync, mkdirSync, readdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { closeChatShell, createChatSession } from "../../src/runtime/chat-session.js";
import { pinFolder } from "../../src/sandbox/pinned-folders.js";
import { closeShellSessions, runShell } from "../../src/sandbox/run-shell.js";
import { defaultShellSettings } from "../../src/sandbox/shell-settings.js";
import { makeRoot, makeThread } from "../tools/helpers.js";
import { HAS_BWRAP } from "../support/confinement.js";
import { useInProcessModel } from "../support/in-process.js";
import { messageText } from "../support/requests.js";

const env = useInProcessModel("deerflow-pinned-", closeChatShell);

/** Renames `dir` away and puts a link to `to` in its place, as the other user's `mv pkg pkg-orig && ln -s ~ pkg`. */
function swapForLink(dir: string, to: string): void {
  renameSync(dir, `${dir}-orig`);
  symlinkSync(to, dir);
}

describe("a workspace replaced while deerflow runs", () => {
  it("the file tools and the shell refuse it, with a line; nothing is written where the link leads", async () => {
    const { server, home, root } = env();
    const pkg = join(root, "repo", "pkg");
    const victim = join(root, "victim-home");
    mkdirSync(pkg, { recursive: true });
    mkdirSync(victim);
    let step = 0;
    server.setScript(() => {
      step++;
      if (step === 1) {
        swapForLink(pkg, victim); // after the run judged the workspace, before its first tool call
        return { toolCalls: [{ name: "write_file", args: { path: "/mnt/user-data/workspace/planted.txt", content: "x\n" } }] };
      }
      if (step === 2) return { toolCalls: [{ name: "bash", args: { command: "echo x > /mnt/user-data/workspace/from-bash; echo ran" } }] };
      return { content: "done" };
    });
    const s = createChatSession({ home, model: "test-model", cwd: pkg, workspace: pkg, approval: "yolo" });
    await s.send({ prompt: "go" }, () => {}, new AbortController().signal);
    const results = server.requests.flatMap((r) => (r.body.messages ?? []).filter((m: { role: string }) => m.role === "tool").map(messageText));
    expect(results.join("\n")).toMatch(/The workspace .*pkg was replaced while deerflow ran/);
    expect(results.join("\n")).not.toMatch(/^ran$/m);
    expect(readdirSync(victim)).toEqual([]);
  });
});

describe.skipIf(!HAS_BWRAP)("a folder the sandbox binds, replaced before it starts", () => {
  it("the sandbox checks its own mounts from the host and ends before any command runs", async () => {
    const root = makeRoot("deerflow-pinned-bind-");
    const paths = makeThread(root, "A");
    const victim = join(root, "victim-home");
    mkdirSync(victim);
    writeFileSync(join(victim, "id_rsa"), "SECRET\n");
    const skill = join(root, "shared", "skills", "mine");
    mkdirSync(skill, { recursive: true });
    writeFileSync(join(skill, "SKILL.md"), "---\nname: mine\ndescription: d\n---\n");
    pinFolder(skill); // as discovery does
    const settings = { ...defaultShellSettings({ userHome: join(root, "home"), dataDir: join(root, "data") }), skillDirs: { mine: skill } };
    swapForLink(skill, victim);
    const r = runShell("ls /mnt/skills/mine; echo ran", { paths, settings, cwd: paths.workspace_path, timeoutSeconds: 30 });
    await expect(r).rejects.toThrow(/The skill folder of mine .*was replaced before the sandbox bound it/);
    // Put back, the skill is bound and commands run.
    await closeShellSessions();
    renameSync(skill, `${skill}-link`);
    renameSync(`${skill}-orig`, skill);
    const ok = await runShell("ls /mnt/skills/mine; echo ran", { paths, settings, cwd: paths.workspace_path, timeoutSeconds: 30 });
    expect(ok.output).toBe("SKILL.md\nran\n");
    await closeShellSessions();
    expect(existsSync(join(victim, "id_rsa"))).toBe(true);
  });
});
