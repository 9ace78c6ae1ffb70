// A repository's .deerflowrc that is a link to /dev/zero or a FIFO must not hang deerflow (the tenth adversarial
// pass: every command hung, memory growing): one line naming the file, exit 2. Spawned, because what would fail is
// the process never ending. A BOM at the start and the size limit are checked in-process.
import { execFileSync } from "node:child_process";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIG_MAX_BYTES } from "../../src/config/config-file-bytes.js";
import { readConfigFile } from "../../src/config/load.js";
import { ConfigError } from "../../src/errors.js";
import { useE2E } from "../support/e2e.js";

const e2e = useE2E();

describe("a .deerflowrc that is not a regular file", () => {
  it("a link to /dev/zero or a FIFO is refused in one line by config and run; nothing hangs", async () => {
    const sb = e2e.sandbox();
    const rc = join(sb.cwd, ".deerflowrc");
    symlinkSync("/dev/zero", rc);
    for (const args of [["config"], ["run", "hi"]]) {
      const r = await sb.run(args, { timeoutMs: 60_000 });
      expect(r.exitCode, `${args[0]}: ${r.stderr}`).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(/Cannot read .*\.deerflowrc: not a regular file/);
    }
    execFileSync("rm", [rc]);
    execFileSync("mkfifo", [rc]);
    const fifo = await sb.run(["config"], { timeoutMs: 60_000 });
    expect(fifo.exitCode, fifo.stderr).toBe(2);
    expect(fifo.stderr).toMatch(/Cannot read .*\.deerflowrc: not a regular file/);
    expect(e2e.server.requests).toHaveLength(0);
  });

  it("a UTF-8 byte order mark is accepted; a file past the size limit is refused", () => {
    const sb = e2e.sandbox();
    const rc = join(sb.cwd, ".deerflowrc");
    writeFileSync(rc, `\uFEFF${JSON.stringify({ defaultModel: "m", models: { m: { model: "gpt-x" } } })}`);
    expect(readConfigFile(rc).config.defaultModel).toBe("m");
    writeFileSync(rc, `{"defaultModel": "m"${" ".repeat(CONFIG_MAX_BYTES)}}`);
    expect(() => readConfigFile(rc)).toThrow(ConfigError);
    expect(() => readConfigFile(rc)).toThrow(/more than the \d+-byte limit/);
  });
});
