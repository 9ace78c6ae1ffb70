// Without bubblewrap, through the built CLI (the PATH without bwrap is the process boundary under test): a symlink the
// repository ships that leads to a credentials folder is followed before the read-only verdict, so the read asks and,
// headless without --yes, is denied; reads that stay inside the workspace still run unasked.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
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
});
