import { mkdirSync, mkdtempSync, readFileSync, readdirSync, existsSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { createAgent, fakeModel, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toolErrorHandlingMiddleware } from "../../src/middleware/tool-error-handling.js";
import { TOOL_RESULTS_DIR, toolOutputBudgetMiddleware } from "../../src/middleware/tool-output-budget.js";

type Out = { messages: BaseMessage[] };

// Lines with varied, multi-byte text so byte-identity means something.
const big = (n: number) => Array.from({ length: n }, (_, i) => `line ${i} — ünïcødé 🦌 ${"x".repeat(i % 7)}`).join("\n");

let output = "";
const dump = tool(async () => output, { name: "dump", description: "dump", schema: z.object({ what: z.string() }) });
const failing = tool(
  async () => {
    throw new Error("E".repeat(30_000));
  },
  { name: "failing", description: "f", schema: z.object({}) },
);

function modelCalling(name: string, args: Record<string, unknown>, id = "call_1") {
  return fakeModel()
    .respond(new AIMessage({ id: "ai-1", content: "", tool_calls: [{ name, args, id, type: "tool_call" }] }))
    .respond(new AIMessage({ id: "ai-2", content: "ok" }));
}

function outputsDir() {
  const root = mkdtempSync(join(tmpdir(), "tob-"));
  return { root, outputs: join(root, "outputs") };
}

const toolMsg = (out: Out) => out.messages.find(ToolMessage.isInstance)!;

describe("ToolOutputBudget", () => {
  it("a result over the budget is saved in full (byte-identical) and replaced by head + tail + a pointer", async () => {
    output = big(2000);
    expect(output.length).toBeGreaterThan(12_000);
    const { root, outputs } = outputsDir();
    const model = modelCalling("dump", { what: "all" }, "call_abc");
    const agent = createAgent({ model, tools: [dump], middleware: [toolOutputBudgetMiddleware()] });
    const out = (await agent.invoke({
      messages: [new HumanMessage("go")],
      thread_data: { workspace_path: join(root, "workspace"), uploads_path: join(root, "uploads"), outputs_path: outputs },
    } as never)) as unknown as Out;

    const file = join(outputs, TOOL_RESULTS_DIR, "dump-call_abc.txt");
    expect(readFileSync(file)).toEqual(Buffer.from(output, "utf8"));
    const msg = toolMsg(out);
    const content = String(msg.content);
    expect(msg.tool_call_id).toBe("call_abc");
    expect(msg.name).toBe("dump");
    expect(msg.status ?? "success").toBe("success");
    expect(content.startsWith(output.slice(0, 4000))).toBe(true);
    expect(content).toContain(output.slice(-2000));
    expect(content).toMatch(/\[\.\.\. \d+ chars omitted \.\.\.\]/);
    expect(content.endsWith(`[Full output (${output.length} chars) saved to /mnt/user-data/outputs/.tool-results/dump-call_abc.txt; read it with read_file if you need more.]`)).toBe(true);
    expect(content.length).toBeLessThan(6500);
    // the model's next call sees the synopsis, not the full output
    expect(String(model.calls[1]!.messages.find(ToolMessage.isInstance)!.content)).toBe(content);
  });

  it("never saves through a link a command planted: a linked .tool-results is refused (said in the result), a linked file replaced", async () => {
    output = big(2000);
    const { root, outputs } = outputsDir();
    const outside = join(root, "home");
    mkdirSync(outside);
    mkdirSync(outputs);
    symlinkSync(outside, join(outputs, TOOL_RESULTS_DIR));
    const run = (id: string) =>
      createAgent({ model: modelCalling("dump", { what: "all" }, id), tools: [dump], middleware: [toolOutputBudgetMiddleware()] }).invoke({
        messages: [new HumanMessage("go")],
        thread_data: { workspace_path: join(root, "workspace"), uploads_path: join(root, "uploads"), outputs_path: outputs },
      } as never) as unknown as Promise<Out>;
    const refused = String(toolMsg(await run("call_x")).content);
    expect(refused).toMatch(/could not be saved \(.*\.tool-results is a symbolic link/);
    expect(readdirSync(outside)).toEqual([]);

    // A real folder holding a link at the file's name: the link is replaced, its target keeps its content.
    rmSync(join(outputs, TOOL_RESULTS_DIR));
    mkdirSync(join(outputs, TOOL_RESULTS_DIR));
    writeFileSync(join(outside, ".bashrc"), "alias ll=ls\n");
    symlinkSync(join(outside, ".bashrc"), join(outputs, TOOL_RESULTS_DIR, "dump-call_y.txt"));
    await run("call_y");
    expect(readFileSync(join(outside, ".bashrc"), "utf8")).toBe("alias ll=ls\n");
    expect(readFileSync(join(outputs, TOOL_RESULTS_DIR, "dump-call_y.txt"), "utf8")).toBe(output);
  });

  it("a result under the budget is untouched and nothing is written", async () => {
    output = "small output\n".repeat(100);
    const { outputs } = outputsDir();
    const agent = createAgent({ model: modelCalling("dump", { what: "x" }), tools: [dump], middleware: [toolOutputBudgetMiddleware()] });
    const out = (await agent.invoke({ messages: [new HumanMessage("go")], thread_data: { outputs_path: outputs } } as never)) as unknown as Out;
    expect(toolMsg(out).content).toBe(output);
    expect(existsSync(join(outputs, TOOL_RESULTS_DIR))).toBe(false);
  });

  it("exactly at the budget is untouched; one over is cut (configurable sizes)", async () => {
    const { outputs } = outputsDir();
    output = "a".repeat(100);
    const mw = () => toolOutputBudgetMiddleware({ maxChars: 100, headChars: 10, tailChars: 5 });
    let out = (await createAgent({ model: modelCalling("dump", { what: "x" }), tools: [dump], middleware: [mw()] }).invoke({
      messages: [new HumanMessage("go")],
      thread_data: { outputs_path: outputs },
    } as never)) as unknown as Out;
    expect(toolMsg(out).content).toBe(output);
    output = `${"h".repeat(10)}${"m".repeat(86)}${"t".repeat(5)}`;
    out = (await createAgent({ model: modelCalling("dump", { what: "x" }, "c/../x"), tools: [dump], middleware: [mw()] }).invoke({
      messages: [new HumanMessage("go")],
      thread_data: { outputs_path: outputs },
    } as never)) as unknown as Out;
    const content = String(toolMsg(out).content);
    expect(content.startsWith(`${"h".repeat(10)}\n\n[... 86 chars omitted ...]\n\n${"t".repeat(5)}\n\n[Full output (101 chars)`)).toBe(true);
    // an odd call id cannot escape the directory
    expect(readdirSync(join(outputs, TOOL_RESULTS_DIR))).toEqual(["dump-c_.._x.txt"]);
  });

  it("without an outputs directory: head and tail only, and the line says so", async () => {
    output = big(2000);
    const agent = createAgent({ model: modelCalling("dump", { what: "x" }), tools: [dump], middleware: [toolOutputBudgetMiddleware()] });
    const out = (await agent.invoke({ messages: [new HumanMessage("go")] })) as unknown as Out;
    const content = String(toolMsg(out).content);
    expect(content.startsWith(output.slice(0, 4000))).toBe(true);
    expect(content).toContain(output.slice(-2000));
    expect(content).toMatch(/\[Output truncated: \d+ chars in total; the middle part was omitted \(no outputs directory to save it to\)\.\]$/);
  });

  it("an unwritable outputs directory degrades to head + tail, the run goes on", async () => {
    output = big(2000);
    const { root } = outputsDir();
    const blocker = join(root, "file");
    writeFileSync(blocker, "not a dir");
    const agent = createAgent({ model: modelCalling("dump", { what: "x" }), tools: [dump], middleware: [toolOutputBudgetMiddleware()] });
    const out = (await agent.invoke({ messages: [new HumanMessage("go")], thread_data: { outputs_path: blocker } } as never)) as unknown as Out;
    expect(String(toolMsg(out).content)).toMatch(/could not be saved/);
    expect(out.messages.at(-1)!.content).toBe("ok");
  });

  it("error results are budgeted too and keep status error (outer to ToolErrorHandling)", async () => {
    const { outputs } = outputsDir();
    // ToolErrorHandling cuts details to 500 chars by default; allow more so the error message is long.
    const agent = createAgent({
      model: modelCalling("failing", {}, "call_err"),
      tools: [failing],
      middleware: [toolOutputBudgetMiddleware(), toolErrorHandlingMiddleware({ maxDetailChars: 50_000 })],
    });
    const out = (await agent.invoke({ messages: [new HumanMessage("go")], thread_data: { outputs_path: outputs } } as never)) as unknown as Out;
    const msg = toolMsg(out);
    expect(msg.status).toBe("error");
    expect(String(msg.content)).toMatch(/^Error: Tool 'failing' failed with Error: E+/);
    expect(String(msg.content)).toContain("saved to /mnt/user-data/outputs/.tool-results/failing-call_err.txt");
    expect(readFileSync(join(outputs, TOOL_RESULTS_DIR, "failing-call_err.txt"), "utf8")).toMatch(/^Error: Tool 'failing' failed with Error: E{30000}\. Continue/);
  });

  it("rejects head + tail that do not fit in the budget", () => {
    expect(() => toolOutputBudgetMiddleware({ maxChars: 100, headChars: 60, tailChars: 40 })).toThrow(RangeError);
  });
});
