// Piped input's rules that need no process of their own (the CLI in-process, stdin a finished stream as a pipe would
// be): material too large for the model is refused before any request, the memory drain's included; empty stdin adds
// nothing; `@path` and `/skill` are the instruction's, never the material's; stdin alone is still the prompt.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Readable } from "node:stream";
import { readPipedText } from "../../src/cli/piped-input.js";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import { userTexts } from "../support/requests.js";

const e2e = useE2E();

describe("deerflow run with piped stdin (in-process)", () => {
  it("material past the model's context window is refused before anything is sent (exit 1, one line)", async () => {
    const sb = e2e.sandbox();
    writeFileSync(join(sb.userHome, ".deerflowrc"), JSON.stringify({ models: { "test-model": { model: "test-model", contextWindow: 8192 } } }));
    const log = "ERROR 2026-11-30 something failed at step 12345 in module x\n".repeat(2000);
    const r = await runCli(sb, ["run", "--output-format", "json", "why did it fail"], { input: log });
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      status: "error",
      error: expect.stringMatching(/^The prompt with its piped input is too long for the model.s context window: about [\d,]+ tokens, and the window holds 8,192/),
    });
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    // Not the run's request, not a memory extraction, not a title: nothing.
    expect(e2e.server.requests).toHaveLength(0);
    expect(e2e.server.memoryRequests).toHaveLength(0);
    expect(e2e.server.titleRequests).toHaveLength(0);
  });

  it("empty or blank stdin adds nothing: the request is the argument alone", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "ok" }, { content: "ok" });
    expect((await runCli(sb, ["run", "just this"], { input: "" })).exitCode).toBe(0);
    expect((await runCli(sb, ["run", "and this"], { input: " \n\t\n" })).exitCode).toBe(0);
    expect(e2e.server.requests.map((q) => userTexts(q).at(-1))).toEqual(["just this", "and this"]);
  });

  it("`@path` in the piped material attaches nothing (it is data); in the instruction it attaches the file", async () => {
    const sb = e2e.sandbox();
    mkdirSync(join(sb.cwd, "docs"));
    writeFileSync(join(sb.cwd, "secret.txt"), "do not upload\n");
    writeFileSync(join(sb.cwd, "docs", "notes.md"), "notes\n");
    e2e.server.push({ content: "read" });
    const r = await runCli(sb, ["run", "--output-format", "json", "compare with @docs/notes.md"], { input: "a log line that mentions @secret.txt\n" });
    expect(r.exitCode, r.stderr).toBe(0);
    const uploads = join(sb.home, "threads", JSON.parse(r.stdout).thread_id as string, "uploads");
    expect(existsSync(uploads) ? readdirSync(uploads) : []).toEqual(["notes.md"]);
    expect(userTexts(e2e.server.requests[0]!).join("\n")).toContain("compare with @docs/notes.md\n\nPiped input (stdin):\n```\na log line that mentions @secret.txt\n```");
  });

  it("bytes that are not UTF-8 are refused as binary; NUL bytes too in material", async () => {
    // runCli's stdin holds a string (always valid UTF-8), so the reader is given the bytes directly.
    const note = () => {};
    const read = (bytes: number[], material = true) => readPipedText(Readable.from([Buffer.from(bytes)]), {}, { note, material });
    await expect(read([0x68, 0x69, 0xc3, 0x28])).rejects.toThrow(/^The piped input is binary \(it is not valid UTF-8\)/);
    await expect(read([0x68, 0x69, 0xc3, 0x28], false)).rejects.toThrow(/it is not valid UTF-8/);
    await expect(read([0x68, 0x00, 0x69])).rejects.toThrow(/it holds NUL bytes/);
    await expect(read([0x68, 0xc3, 0xa9])).resolves.toBe("hé");
    // A prompt piped alone may hold a NUL (argv cannot carry one): it is kept, as before (test/cli/prompt-edges.test.ts).
    await expect(read([0x68, 0x00, 0x69], false)).resolves.toBe("h\u0000i");
  });

  it("material far past the bound is not read to its end: reading stops there and says so", async () => {
    let produced = 0;
    // An endless producer (like `yes | deerflow run "…"`): reading must stop on its own.
    const endless = new Readable({
      read() {
        produced += 65536;
        this.push(Buffer.alloc(65536, 0x61));
      },
    });
    await expect(readPipedText(endless, { contextWindow: 8192 }, { note: () => {} })).rejects.toThrow(
      /^The piped input \(read up to 128 KB, then no further\) is too long for the model.s context window/,
    );
    expect(produced).toBeLessThan(1024 * 1024);
  });
});
