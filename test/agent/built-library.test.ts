// The library's deviations from its seed, fixed, proven against the BUILT package (`dist/`, imported by its name
// `deerflow` through package.json's "exports", in a separate node process): what a program that depends on deerflow
// gets. `features.summarization: true` is refused (a summary needs the model's window, which `true` cannot say), and
// two different writes of `title` in one step (two tools of one model answer) fail the step instead of keeping the
// last. The model is the loopback server speaking the OpenAI protocol.
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";

const e2e = useE2E();
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A program using the built library; prints one line per outcome. */
const PROGRAM = `
import { createDeerflowAgent, AgentOptionsError } from "deerflow";
import { tool } from "langchain";
import { Command } from "@langchain/langgraph";
import { ToolMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { z } from "zod";
const model = new ChatOpenAI({ model: "test-model", useResponsesApi: false, maxRetries: 0, configuration: { baseURL: process.env.OPENAI_BASE_URL } });
try {
  createDeerflowAgent(model, [], { features: { summarization: true } });
  console.log("summarization: built");
} catch (e) {
  console.log("summarization:", e instanceof AgentOptionsError, e.code, e.message);
}
const titled = (name, title) =>
  tool(async (_args, rt) => new Command({ update: { title, messages: [new ToolMessage({ tool_call_id: rt.toolCall.id, content: "ok" })] } }), { name, description: name, schema: z.object({}) });
const agent = createDeerflowAgent(model, [titled("name_a", "A"), titled("name_b", "B")], { features: { sandbox: false } });
try {
  const out = await agent.invoke({ messages: [{ role: "user", content: "name it" }] });
  console.log("double write: kept", JSON.stringify(out.title));
} catch (e) {
  console.log("double write:", e.name, e.message.split("\\n")[0]);
}
`;

describe("the built library", () => {
  it("refuses features.summarization: true, and fails a step that writes title twice with different values", async () => {
    e2e.server.push({
      toolCalls: [
        { id: "a", name: "name_a", args: {} },
        { id: "b", name: "name_b", args: {} },
      ],
    });
    const r = await execa(process.execPath, ["--input-type=module", "-e", PROGRAM], {
      // The package's own folder: `deerflow` resolves to the built dist/ as it does for a program depending on it.
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: ROOT, OPENAI_BASE_URL: e2e.server.url, OPENAI_API_KEY: "sk-test" },
      extendEnv: false,
      reject: false,
      timeout: 60_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const [summarization, doubleWrite] = r.stdout.trim().split("\n");
    expect(summarization).toMatch(/^summarization: true feature_needs_instance features\.summarization: true is not allowed: pass summarizationMiddleware/);
    expect(doubleWrite).toMatch(/^double write: DoubleWriteError Two different writes of "title" in one step/);
    // One model call: the failing step ended the run.
    expect(e2e.server.requests).toHaveLength(1);
  });
});
