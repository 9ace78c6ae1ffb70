// MCP servers in a real terminal: a failing server is a notice and the chat goes on; /mcp lists the servers; a
// hung MCP call is cancelled by Esc (the server is told), the thread goes on; after the chat no server process is
// left (/proc).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { fixture, writeRc } from "../support/mcp.js";
import { processesMatching } from "../support/processes.js";
import { submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("MCP in the chat", () => {
  it("a hung MCP call: esc cancels it (the server sees the cancellation); /mcp lists the servers; nothing is left after exit", async () => {
    const sb = e2e.sandbox();
    const marker = `deerflow-tui-mcp-${process.pid}-${Date.now()}`;
    const hangFile = join(sb.cwd, "hang.pid");
    writeRc(sb, {
      fx: { ...fixture("--hang", "--tools", "2", "--marker", marker), env: { FIXTURE_HANG_FILE: hangFile }, trust: true },
      dies: fixture("--exit-at-start", "--marker", marker),
    });
    e2e.server.push({ toolCalls: [{ id: "h1", name: "mcp__fx__hang", args: {} }] }, { content: "Carrying on without it." });
    const t = tui.spawn(sb, ["chat"], { cols: 140 });
    await waitReady(t);
    await submit(t, "call the slow service");
    await t.waitFor('MCP server "dies" is not available: the server exited while starting');
    await t.waitFor("mcp__fx__hang", { where: "screen" });
    for (let i = 0; i < 100 && !existsSync(hangFile); i++) await sleep(100);
    expect(existsSync(hangFile)).toBe(true);

    await t.press("esc");
    await t.waitFor("Interrupted. The thread is saved", { timeoutMs: 15_000 });
    for (let i = 0; i < 100 && !existsSync(`${hangFile}.cancelled`); i++) await sleep(100);
    expect(existsSync(`${hangFile}.cancelled`)).toBe(true);

    await submit(t, "/mcp");
    await t.waitFor("fx (stdio): ready, 3 tools");
    await t.waitFor(/dies \(stdio\): failed — the server exited while starting/);

    // The thread goes on; the same server still answers (the cancelled call did not take it down).
    await submit(t, "go on");
    await t.waitFor("Carrying on without it.");

    await submit(t, "/exit");
    await t.exited;
    for (let i = 0; i < 50 && processesMatching(marker).length > 0; i++) await sleep(100);
    expect(processesMatching(marker)).toEqual([]);
  }, 90_000);

  it("ask mode: an untrusted MCP tool asks first; 'allow always' covers that tool for the rest of the thread", async () => {
    const sb = e2e.sandbox();
    writeRc(sb, { fx: fixture("--tools", "1") });
    e2e.server.push(
      { toolCalls: [{ id: "a1", name: "mcp__fx__fixture_0", args: { text: "first" } }] },
      { toolCalls: [{ id: "a2", name: "mcp__fx__fixture_0", args: { text: "second" } }] },
      { content: "Both calls went through." },
    );
    const t = tui.spawn(sb, ["chat"], { cols: 120 });
    await waitReady(t);
    await submit(t, "use the fixture twice");
    await t.waitFor(/Allow this (command|tool call)\? \(mcp__fx__fixture_0\)/, { where: "screen" });
    expect(t.screen()).toContain('mcp__fx__fixture_0 {"text":"first"}');
    expect(t.screen()).toContain('why it asks: MCP tool "fixture_0" of server "fx"');
    await t.write("2");
    await t.waitFor("Both calls went through.");
    // The second call (other arguments) did not ask again.
    expect(t.scrollback().match(/Allow this (command|tool call)\?/g) ?? []).toHaveLength(0);
    const results = JSON.stringify(e2e.server.requests[2]!.body.messages);
    expect(results).toContain("fixture_0 says: first");
    expect(results).toContain("fixture_0 says: second");
  }, 90_000);
});
