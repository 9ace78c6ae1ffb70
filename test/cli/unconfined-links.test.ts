// Without bubblewrap, through the built CLI (the PATH without bwrap is the process boundary under test): a symlink the
// repository ships that leads to a credentials folder is followed before the read-only verdict, so the read asks and,
// headless without --yes, is denied; reads that stay inside the workspace still run unasked.
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { pathWithoutBwrap, toolResults } from "../support/confinement.js";

const e2e = useE2E();

describe("unconfined reads follow links", () => {
  it("a shipped symlink to ~/.aws is not read unasked; a plain read in the workspace is", async () => {
    const sb = e2e.sandbox();
    const ws = join(sb.userHome, "clone");
    mkdirSync(join(sb.userHome, ".aws"), { recursive: true });
    writeFileSync(join(sb.userHome, ".aws", "credentials"), "aws_secret_access_key = LINKED-SECRET-1\n");
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, "notes.txt"), "plain notes\n");
    symlinkSync(join(sb.userHome, ".aws"), join(ws, "docs"));
    e2e.server.push(
      {
        toolCalls: [
          { id: "link", name: "bash", args: { command: "cat docs/credentials" } },
          { id: "glob", name: "bash", args: { command: "cat */credentials" } },
          { id: "plain", name: "bash", args: { command: "cat notes.txt" } },
        ],
      },
      { content: "done" },
    );
    const r = await sb.run(["run", "-w", ws, "read"], { env: { PATH: pathWithoutBwrap(sb) } });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = toolResults(e2e.server.requests[1]!);
    expect(out.link).not.toContain("LINKED-SECRET");
    expect(out.link).toContain("docs/credentials leads to");
    expect(out.glob).not.toContain("LINKED-SECRET");
    expect(out.plain).toContain("plain notes");
  });

  it("a link named like an option after `--` or like `name=value`, a virtual path glued to a suffix, and a folder name with shell syntax are never read or run unasked (the twenty-eighth pass's A28b-1 to 4)", async () => {
    const sb = e2e.sandbox();
    const ws = join(sb.userHome, "clone");
    const odd = join(sb.userHome, "proj$(cd;touch PWNED-ws)");
    mkdirSync(join(sb.userHome, ".aws"), { recursive: true });
    writeFileSync(join(sb.userHome, ".aws", "credentials"), "aws_secret_access_key = LINKED-SECRET-2\n");
    writeFileSync(join(sb.userHome, "clone.env"), "SIBLING-SECRET-3\n");
    mkdirSync(ws, { recursive: true });
    mkdirSync(odd, { recursive: true });
    symlinkSync(join(sb.userHome, ".aws", "credentials"), join(ws, "-creds"));
    symlinkSync(join(sb.userHome, ".aws", "credentials"), join(ws, "cfg=x"));
    e2e.server.push(
      {
        toolCalls: [
          { id: "dash", name: "bash", args: { command: "cat -- -creds" } },
          { id: "eq", name: "bash", args: { command: "cat cfg=x" } },
          { id: "glued", name: "bash", args: { command: 'cat "/mnt/user-data/workspace".env' } },
        ],
      },
      { content: "done" },
      { toolCalls: [{ id: "odd", name: "bash", args: { command: 'ls "/mnt/user-data/workspace"' } }] },
      { content: "done" },
    );
    const env = { PATH: pathWithoutBwrap(sb) };
    const r = await sb.run(["run", "-w", ws, "read"], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = toolResults(e2e.server.requests[1]!);
    for (const id of ["dash", "eq", "glued"]) expect(out[id], id).not.toMatch(/LINKED-SECRET|SIBLING-SECRET/);
    expect(out.dash).toContain("-creds leads to");
    expect(out.eq).toContain("cfg=x leads to");
    const second = await sb.run(["run", "-w", odd, "list"], { env });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(toolResults(e2e.server.requests[3]!).odd).toMatch(/characters the shell reads as syntax/);
    expect(existsSync(join(sb.userHome, "PWNED-ws"))).toBe(false);
  });
});
