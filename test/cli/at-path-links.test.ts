// `@path` and `--upload` of a file named inside the working directory never follow a link out of it: a repository
// that ships `docs/guide.md -> ../../.someapp/token` does not get the user's token sent by `summarize @docs/guide.md`
// (the tenth adversarial pass). Naming the outside file itself is the user's choice and still works.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";

const e2e = useE2E();

describe("@path and --upload through a repository link", () => {
  it("a link out of the working directory is refused in one line; the target named itself, and a link inside, are attached", async () => {
    const sb = e2e.sandbox();
    mkdirSync(join(sb.userHome, ".someapp"));
    writeFileSync(join(sb.userHome, ".someapp", "token"), "SOMEAPP-TOKEN-PLANTED-2\n");
    mkdirSync(join(sb.cwd, "docs"));
    symlinkSync("../../.someapp/token", join(sb.cwd, "docs", "guide.md"));
    symlinkSync("../..", join(sb.cwd, "docs", "up"));
    writeFileSync(join(sb.cwd, "README.md"), "# readme\n");
    symlinkSync("../README.md", join(sb.cwd, "docs", "readme.md"));

    for (const args of [
      ["run", "summarize @docs/guide.md please"],
      ["run", "--upload", "docs/guide.md", "read it"],
      ["run", "see @docs/up/.someapp/token"],
    ]) {
      const r = await runCli(sb, args);
      expect(r.exitCode, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(/Refusing to attach .*: it is a symbolic link \(or inside one\) that leads out of .* to .*\.someapp\/token/);
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    }
    // From a subfolder of the repository, `../docs/guide.md` still names a repository file (the eleventh pass's M4).
    mkdirSync(join(sb.cwd, ".git"));
    mkdirSync(join(sb.cwd, "src"));
    const sub = await runCli({ ...sb, cwd: join(sb.cwd, "src") }, ["run", "compare this module with @../docs/guide.md please"]);
    expect(sub.exitCode, sub.stderr).toBe(2);
    expect(sub.stderr).toMatch(/Refusing to attach @\.\.\/docs\/guide\.md: .* leads out of .*project to .*\.someapp\/token/);
    expect(e2e.server.requests).toHaveLength(0);

    // A link that stays inside, and the outside file named by its own path, are the user's to send.
    e2e.server.setScript(() => ({ content: "read" }));
    const ok = await runCli(sb, ["run", "--no-memory", "compare @docs/readme.md and @~/.someapp/token"]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    const sent = JSON.stringify(e2e.server.requests.at(-1)!.body.messages);
    expect(sent).toContain("# readme");
    expect(sent).toContain("SOMEAPP-TOKEN-PLANTED-2");
  });
});
