// The workspace is where you start, in a real terminal: the header and the status line name the directory the
// thread works in, `!ls` lists its files, $HOME falls back to a fresh folder with one notice, and a resumed thread
// from another directory says where it works.
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { listThreads } from "../support/requests.js";
import { statusLine, submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

describe("the chat's workspace", () => {
  it("100×30 in a project: the header shows its path, the status line its name, !ls its files", async () => {
    const sb = e2e.sandbox();
    writeFileSync(join(sb.cwd, "marker-7741.txt"), "x\n");
    const t = tui.spawn(sb, ["chat"], { cols: 100, rows: 30 });
    await waitReady(t);
    expect(t.scrollback()).toContain(sb.cwd);
    expect(statusLine(t)).toContain("· in project");
    await submit(t, "!ls");
    await t.waitFor("marker-7741.txt");
    const [thread] = await listThreads(sb);
    expect(thread!.workspace).toBe(realpathSync(sb.cwd));
  }, 60_000);

  it("60×20 in $HOME: one notice says it works in a fresh folder, and the header says so", async () => {
    const sb = e2e.sandbox();
    const t = tui.spawn(sb, ["chat"], { cols: 60, rows: 20, cwd: sb.userHome });
    await waitReady(t);
    const text = t.scrollback().replace(/\s+/g, " ");
    expect(text).toContain("a fresh folder for each new thread");
    expect(text).toContain(`Not working in ${sb.userHome}: it is your home directory. This thread works in a fresh folder`);
    expect(text.match(/Not working in/g)).toHaveLength(1);
    expect(text).not.toContain(sb.cwd);
  }, 60_000);

  it("100×30 resume from another directory: a notice names the thread's own workspace; the status line shows it", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "First answer." });
    const first = await sb.run(["run", "--output-format", "json", "start here"]);
    expect(first.exitCode, first.stderr).toBe(0);
    const id = JSON.parse(first.stdout).thread_id as string;
    const elsewhere = join(sb.userHome, "elsewhere");
    mkdirSync(elsewhere);
    const t = tui.spawn(sb, ["resume", id], { cols: 100, rows: 30, cwd: elsewhere });
    await waitReady(t);
    expect(t.scrollback().replace(/\s+/g, " ")).toContain(`Thread ${id} works in ${realpathSync(sb.cwd)} (its own workspace), not in the current directory.`);
    expect(statusLine(t)).toMatch(/· in project$/);
  }, 60_000);
});
