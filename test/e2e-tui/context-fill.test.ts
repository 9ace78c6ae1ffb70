// End to end in a real terminal: with no contextWindow configured, the status line's context fill uses the window the
// model's server states (vLLM's max_model_len, recorded), so `ctx N%` shows from the first answer.
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { submit, usePty, waitReady } from "../support/pty.js";
import { VLLM_MODELS } from "../providers/window-fixtures.js";

const e2e = useE2E();
const tui = usePty();

describe("context fill without a configured window", () => {
  it("shows ctx % of the window the server states after the first answer", async () => {
    const sb = e2e.sandbox();
    e2e.server.modelList = { ...VLLM_MODELS, data: [{ ...VLLM_MODELS.data[0]!, id: "test-model", root: "test-model", max_model_len: 131072 }] };
    // 13 107 + 1 reported tokens of a 131 072-token window: 10 %.
    e2e.server.push({ content: "First answer.", usage: { prompt_tokens: 13107, completion_tokens: 1 } });
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    await submit(t, "hello");
    await t.waitFor("First answer.");
    await t.waitFor("ctx 10%", { where: "screen" });
    expect(e2e.server.modelListAuth).toContain("Bearer sk-test-key-123456");
  }, 60_000);
});
