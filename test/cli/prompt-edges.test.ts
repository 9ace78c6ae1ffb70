// Prompts at the edges, through the built CLI: a NUL byte (it cannot cross argv, so the snapshot commit that named
// the prompt failed and the run had no rewind), and a paste far larger than any model takes when no context window
// is configured (it was uploaded whole).
import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { useE2E } from "../support/e2e.js";
import { HAS_BWRAP, type Mode, pathWithoutBwrap, unconfinedFlag } from "../support/confinement.js";

const e2e = useE2E();
const modes: Mode[] = HAS_BWRAP ? ["bwrap", "fallback"] : ["fallback"];

describe.each(modes)("a NUL byte in the prompt (%s)", (mode) => {
  it("the run is still snapshotted, so rewind puts its files back", async () => {
    const sb = e2e.sandbox();
    const env = mode === "fallback" ? { PATH: pathWithoutBwrap(sb) } : {};
    e2e.server.push({ toolCalls: [{ id: "w1", name: "bash", args: { description: "write", command: "printf 'made\\n' > made.txt" } }] }, { content: "Wrote it." });
    const r = await sb.run(["run", "--yes", ...unconfinedFlag(mode), "-w", sb.cwd, "--output-format", "json"], { env, input: "write made.txt\u0000 now" });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/could not be snapshotted/);
    expect(readFileSync(join(sb.cwd, "made.txt"), "utf8")).toBe("made\n");
    const thread = JSON.parse(r.stdout).thread_id as string;

    const back = await sb.run(["rewind", thread, "--files-only", "--json"], { env });
    expect(back.exitCode, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout).files.restored).toEqual(["made.txt"]);
    expect(existsSync(join(sb.cwd, "made.txt"))).toBe(false);
  }, 60_000);
});

describe("a prompt larger than any model takes", () => {
  it("with no context window configured, a 50 MB prompt is refused with one line before anything is sent or recorded", async () => {
    const sb = e2e.sandbox();
    const huge = "0123456789abcdef ".repeat(Math.ceil((50 * 1024 * 1024) / 17));
    const r = await sb.run(["run"], { input: huge, timeoutMs: 120_000 });
    expect(r.exitCode).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^deerflow: The prompt is too long to send: about 13,107,\d{3} tokens, more than the 1,048,576 deerflow sends to a model whose context window is not configured\. .*contextWindow/,
    );
    expect(e2e.server.requests).toHaveLength(0);
    const threads = join(sb.home, "threads");
    expect(existsSync(threads) ? readdirSync(threads) : []).toEqual([]);
  }, 120_000);
});
