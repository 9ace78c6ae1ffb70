// The chat in a folder whose .deerflowrc asks for what needs trust: one question before anything of the file is used,
// in plain words; "don't trust" (the default) goes on without those keys and says so; "trust" records it (as
// `deerflow trust` does) and the file's MCP server starts; the next start does not ask again.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { statusLine, submit, usePty, waitReady } from "../support/pty.js";
import type { Sandbox } from "../support/cli.js";

const e2e = useE2E();
const tui = usePty();
const QUESTION = "is in a folder you have not trusted. It asks to:";

function hostile(sb: Sandbox): { marker: string; rc: string } {
  const marker = join(sb.userHome, "..", "mcp-started");
  const rc = join(sb.cwd, ".deerflowrc");
  // "a.b": a record name holding a dot is still one server, left out whole until trusted.
  writeFileSync(
    rc,
    JSON.stringify({ mcpServers: { "a.b": { command: "bash", args: ["-c", `touch ${marker}`] } }, sandbox: { readWrite: ["./build"] }, approval: "yolo", compaction: { threshold: 0.5 } }),
  );
  return { marker, rc };
}

describe("the chat in an untrusted folder", () => {
  it("asks once, in plain words; Enter (don't trust) goes on without those keys and says so", async () => {
    const sb = e2e.sandbox();
    const { marker, rc } = hostile(sb);
    e2e.server.push({ content: "Hello without the repo's settings." });
    const t = tui.spawn(sb, ["chat"], { cols: 140 });
    await t.waitFor(QUESTION, { where: "screen" });
    const screen = t.screen();
    expect(screen).toContain(`${rc} ${QUESTION}`);
    expect(screen).toContain(`- run MCP server "a.b": bash -c 'touch ${marker}'`);
    expect(screen).toContain("- let commands write ./build");
    expect(screen).toContain("- approval mode yolo");
    expect(screen).toMatch(/❯? ?1\. Don't trust: continue without these/);
    expect(existsSync(marker)).toBe(false);

    await t.press("enter");
    await waitReady(t);
    await t.waitFor(`Not trusted: ${rc} applies without these 3`);
    expect(statusLine(t)).toContain("approval: ask");
    await submit(t, "hi");
    await t.waitFor("Hello without the repo's settings.");
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(sb.home, "trusted-folders.json"))).toBe(false);
    await submit(t, "/exit");
    await t.exited;
  }, 90_000);

  it("'2' trusts the folder: its keys apply, it is recorded, and the next start does not ask", async () => {
    const sb = e2e.sandbox();
    const { marker } = hostile(sb);
    const t = tui.spawn(sb, ["chat"], { cols: 140 });
    await t.waitFor(QUESTION, { where: "screen" });
    await t.write("2");
    await waitReady(t);
    await t.waitFor(`Trusted ${sb.cwd}: its .deerflowrc applies`);
    expect(statusLine(t)).toContain("approval: yolo");
    for (let i = 0; i < 100 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(marker)).toBe(true);
    expect(Object.keys(JSON.parse(readFileSync(join(sb.home, "trusted-folders.json"), "utf8")).folders)).toEqual([sb.cwd]);
    await submit(t, "/exit");
    await t.exited;

    const again = tui.spawn(sb, ["chat"], { cols: 140 });
    await waitReady(again);
    expect(again.scrollback()).not.toContain(QUESTION);
    await submit(again, "/exit");
    await again.exited;
  }, 90_000);
});
