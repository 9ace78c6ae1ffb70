// First run without configuration, in a real terminal: the chat offers the models a local server serves (found
// on a loopback port given by DEERFLOW_DISCOVER_PORTS), saves the pick to ~/.deerflowrc without losing what the
// file already held, and `/model` lists configured and discovered models.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseJsonc } from "../../src/config/jsonc.js";
import { useE2E } from "../support/e2e.js";
import { submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();
const port = () => Number(new URL(e2e.server.url).port);
const baseUrl = () => `http://127.0.0.1:${port()}/v1`;

describe("first run: the model picker", () => {
  it("offers the local model; Enter saves it to ~/.deerflowrc (other keys kept) and the chat works with it", async () => {
    const sb = e2e.sandbox(false);
    const rc = join(sb.userHome, ".deerflowrc");
    // An existing file with a comment and keys of its own (but no model).
    writeFileSync(rc, '// mine\n{ "approval": "auto-edit", "guards": { "loopStop": 7 } }\n');
    e2e.server.push({ content: "Hello from the picked model." });
    const t = tui.spawn(sb, ["chat"], { env: { DEERFLOW_DISCOVER_PORTS: `Ollama=${port()}` } });
    await t.waitFor("No model configured. Found on this machine:");
    await t.waitFor(`test-model · Ollama at ${baseUrl()}`);
    await t.press("enter");
    await waitReady(t);
    await t.waitFor("(defaultModel)");
    expect(t.screen().replace(/\s+/g, " ")).toContain(`saved to ${rc} as "test-model" (defaultModel)`);
    // Edited in place: the comment stays in the file (no .bak copy).
    const text = readFileSync(rc, "utf8");
    expect(text).toMatch(/^\/\/ mine\n/);
    expect(parseJsonc(text)).toEqual({ approval: "auto-edit", guards: { loopStop: 7 }, models: { "test-model": { model: "test-model", baseUrl: baseUrl() } }, defaultModel: "test-model" });
    expect(existsSync(`${rc}.bak`)).toBe(false);

    await submit(t, "hi");
    await t.waitFor("Hello from the picked model.");
    expect(e2e.server.requests.at(-1)?.body.model).toBe("test-model");

    // `/model` is a picker: the configured name, in use; the probe finds the same model again (listed once).
    await submit(t, "/model");
    await t.waitFor("Switch model (for this session):", { where: "screen" });
    await t.waitFor("❯ 1. test-model · in .deerflowrc (in use)", { where: "screen" });
    expect(t.screen()).not.toContain("2. test-model");
    await t.press("esc");
    await t.waitFor("Model unchanged: test-model");
  }, 60_000);

  it("Esc leaves with the one-line hint (exit 2) and writes nothing", async () => {
    const sb = e2e.sandbox(false);
    const t = tui.spawn(sb, ["chat"], { env: { DEERFLOW_DISCOVER_PORTS: `vLLM=${port()}` } });
    await t.waitFor(`test-model · vLLM at ${baseUrl()}`);
    await t.press("esc");
    expect(await t.exited).toMatchObject({ exitCode: 2 });
    await t.waitFor(/No model configured\. Set DEERFLOW_MODEL/);
    expect(existsSync(join(sb.userHome, ".deerflowrc"))).toBe(false);
    expect(e2e.server.requests).toHaveLength(0);
  }, 60_000);

  for (const [cols, rows] of [
    [60, 20],
    [100, 30],
  ] as const) {
    it(`nothing found (${cols}×${rows}): no picker, the error says what to set, and no stale start-up lines stay`, async () => {
      const sb = e2e.sandbox(false);
      const t = tui.spawn(sb, ["chat"], { cols, rows });
      expect(await t.exited).toMatchObject({ exitCode: 2 });
      await t.waitFor(/No model configured\. Set DEERFLOW_MODEL/);
      const all = t.scrollback();
      expect(all).not.toContain("Found on this machine");
      // The terminal wraps the CLI's line anywhere: compared without whitespace.
      const squeeze = (x: string) => x.replace(/\s+/g, "");
      expect(squeeze(all)).toContain(squeeze('Set DEERFLOW_MODEL (plus OPENAI_BASE_URL / OPENAI_API_KEY as your endpoint needs), or add "models" and "defaultModel" to .deerflowrc'));
      // The input box and the status line of the start-up frame are gone, not left above the error.
      expect(all).not.toContain("Starting…");
      expect(all).not.toContain("loading…");
    }, 60_000);
  }

  it("60×20 with a key and base URL but no model: the picker offers the endpoint's models; the pick is saved and used", async () => {
    const sb = e2e.sandbox(false);
    e2e.server.modelIds = ["alpha-coder", "beta-chat"];
    const env = { OPENAI_BASE_URL: e2e.server.url, OPENAI_API_KEY: "sk-picker-key-77" };
    const t = tui.spawn(sb, ["chat"], { cols: 60, rows: 20, env });
    await t.waitFor("No model configured. Your endpoint serves:");
    await t.waitFor("beta-chat · your endpoint at");
    expect(e2e.server.modelListAuth).toContain("Bearer sk-picker-key-77");
    await t.press("down");
    await t.press("enter");
    await waitReady(t);
    const saved = JSON.parse(readFileSync(join(sb.userHome, ".deerflowrc"), "utf8"));
    expect(saved).toEqual({ models: { "beta-chat": { model: "beta-chat", baseUrl: baseUrl() } }, defaultModel: "beta-chat" });
    e2e.server.push({ content: "Hello from beta." });
    await submit(t, "hi");
    await t.waitFor("Hello from beta.");
    expect(e2e.server.requests.at(-1)?.body.model).toBe("beta-chat");
    expect(e2e.server.requests.at(-1)?.headers.authorization).toBe("Bearer sk-picker-key-77");
  }, 60_000);
});
