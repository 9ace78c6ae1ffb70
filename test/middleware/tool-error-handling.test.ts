import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { GraphInterrupt, MemorySaver } from "@langchain/langgraph";
import { createAgent, createMiddleware, fakeModel, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formatToolError, toolErrorHandlingMiddleware } from "../../src/middleware/tool-error-handling.js";

const toolCallMsg = (id: string, name: string, args: Record<string, unknown>, callId = `${id}-call`) => new AIMessage({ id, content: "", tool_calls: [{ id: callId, name, args, type: "tool_call" }] });

class FileMissingError extends Error {
  override name = "FileMissingError";
}

const readFile = tool(
  async ({ path }: { path: string }) => {
    if (path === "/missing") throw new FileMissingError(`no such file: ${path}`);
    if (path === "/huge") throw new Error("x".repeat(2000));
    if (path === "/type") throw new TypeError("Cannot read properties of undefined (reading 'length')");
    return `contents of ${path}`;
  },
  { name: "read_file", description: "read a file", schema: z.object({ path: z.string(), start_line: z.number().int().optional() }) },
);

function agentWith(model: ReturnType<typeof fakeModel>, extra: Parameters<typeof createAgent>[0]["middleware"] = []) {
  return createAgent({ model, tools: [readFile], middleware: [toolErrorHandlingMiddleware(), ...(extra ?? [])] });
}

describe("ToolErrorHandling", () => {
  it("turns a throwing tool into an error ToolMessage with the exact shape, and the run goes on", async () => {
    const model = fakeModel()
      .respond(toolCallMsg("a1", "read_file", { path: "/missing" }))
      .respond(new AIMessage({ id: "a2", content: "The file does not exist." }));
    const out = await agentWith(model).invoke({ messages: [new HumanMessage("read /missing")] });
    const tm = out.messages.find(ToolMessage.isInstance)!;
    expect(tm.status).toBe("error");
    expect(tm.name).toBe("read_file");
    expect(tm.tool_call_id).toBe("a1-call");
    expect(tm.content).toBe("Error: Tool 'read_file' failed with FileMissingError: no such file: /missing. Continue with available context, or choose an alternative tool.");
    expect(model.callCount).toBe(2);
    expect(out.messages.at(-1)!.content).toBe("The file does not exist.");
    // the model saw the error
    expect(model.calls[1]!.messages.some((m) => ToolMessage.isInstance(m) && m.status === "error")).toBe(true);
  });

  it("names built-in error classes and cuts the detail at 500 characters", async () => {
    const model = fakeModel()
      .respond(
        new AIMessage({
          id: "a1",
          content: "",
          tool_calls: [
            { id: "c-huge", name: "read_file", args: { path: "/huge" }, type: "tool_call" },
            { id: "c-type", name: "read_file", args: { path: "/type" }, type: "tool_call" },
          ],
        }),
      )
      .respond(new AIMessage({ id: "a2", content: "ok" }));
    const out = await agentWith(model).invoke({ messages: [new HumanMessage("go")] });
    const byId = Object.fromEntries(out.messages.filter(ToolMessage.isInstance).map((m) => [m.tool_call_id, String(m.content)]));
    expect(byId["c-type"]).toBe(
      "Error: Tool 'read_file' failed with TypeError: Cannot read properties of undefined (reading 'length'). Continue with available context, or choose an alternative tool.",
    );
    const huge = byId["c-huge"]!;
    const detail = huge.slice("Error: Tool 'read_file' failed with Error: ".length, huge.indexOf(". Continue with available context"));
    expect(detail.length).toBe(500);
    expect(detail.endsWith("…")).toBe(true);
  });

  it("malformed arguments (zod rejects them) become an error ToolMessage and the run continues", async () => {
    const model = fakeModel()
      .respond(toolCallMsg("a1", "read_file", { path: 42, start_line: "ten" }))
      .respond(toolCallMsg("a2", "read_file", { path: "/ok" }))
      .respond(new AIMessage({ id: "a3", content: "done" }));
    const out = await agentWith(model).invoke({ messages: [new HumanMessage("go")] });
    const [bad, good] = out.messages.filter(ToolMessage.isInstance);
    expect(bad!.status).toBe("error");
    expect(String(bad!.content)).toMatch(
      /^Error: Tool 'read_file' failed with ValidationError: Received tool input did not match expected schema .*path.*\. Continue with available context, or choose an alternative tool\.$/,
    );
    expect(String(bad!.content)).not.toContain("\n");
    expect(good!.content).toBe("contents of /ok");
    expect(model.callCount).toBe(3);
  });

  it("catches errors thrown by an inner wrapToolCall middleware too", async () => {
    const inner = createMiddleware({
      name: "Inner",
      wrapToolCall: async () => {
        throw new RangeError("policy engine exploded");
      },
    });
    const model = fakeModel()
      .respond(toolCallMsg("a1", "read_file", { path: "/ok" }))
      .respond(new AIMessage({ id: "a2", content: "ok" }));
    const out = await agentWith(model, [inner]).invoke({ messages: [new HumanMessage("go")] });
    expect(out.messages.find(ToolMessage.isInstance)!.content).toBe(
      "Error: Tool 'read_file' failed with RangeError: policy engine exploded. Continue with available context, or choose an alternative tool.",
    );
  });

  it("does not swallow cancellation: an aborted run still rejects", async () => {
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const slow = tool(
      async (_: { x: number }, config) =>
        new Promise<string>((_resolve, reject) => {
          started();
          config?.signal?.addEventListener("abort", () => reject(Object.assign(new Error("The operation was aborted"), { name: "AbortError" })));
        }),
      { name: "slow", description: "slow", schema: z.object({ x: z.number() }) },
    );
    const model = fakeModel()
      .respond(toolCallMsg("a1", "slow", { x: 1 }))
      .respond(new AIMessage("never"));
    const agent = createAgent({ model, tools: [slow], middleware: [toolErrorHandlingMiddleware()] });
    const controller = new AbortController();
    const run = agent.invoke({ messages: [new HumanMessage("go")] }, { signal: controller.signal });
    await running;
    controller.abort();
    await expect(run).rejects.toThrow();
    expect(model.callCount).toBe(1);
  });

  it("rethrows an AbortError even when the signal is not aborted", async () => {
    const mw = toolErrorHandlingMiddleware();
    const abortErr = Object.assign(new Error("cancelled by tool"), { name: "AbortError" });
    const request = { toolCall: { id: "c", name: "x", args: {} }, tool: undefined, state: { messages: [] }, runtime: {} } as never;
    await expect(mw.wrapToolCall!(request, async () => Promise.reject(abortErr))).rejects.toBe(abortErr);
  });

  it("lets LangGraph interrupts through (the run pauses instead of getting an error result)", async () => {
    const mw = toolErrorHandlingMiddleware();
    const interrupt = new GraphInterrupt([{ value: "approve?", id: "i1" } as never]);
    const request = { toolCall: { id: "c", name: "x", args: {} }, tool: undefined, state: { messages: [] }, runtime: {} } as never;
    await expect(mw.wrapToolCall!(request, async () => Promise.reject(interrupt))).rejects.toBe(interrupt);

    // and end to end: a tool calling interrupt() pauses the run
    const { interrupt: interruptFn } = await import("@langchain/langgraph");
    const ask = tool(async () => String(interruptFn("approve?")), { name: "ask", description: "ask", schema: z.object({}) });
    const model = fakeModel()
      .respond(toolCallMsg("a1", "ask", {}))
      .respond(new AIMessage("after"));
    const agent = createAgent({ model, tools: [ask], middleware: [toolErrorHandlingMiddleware()], checkpointer: new MemorySaver() });
    const out = (await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "i" } })) as { __interrupt__?: unknown[]; messages: unknown[] };
    expect(out.__interrupt__).toHaveLength(1);
    expect(out.messages.some((m) => ToolMessage.isInstance(m))).toBe(false);
  });

  it("formatToolError handles non-Error throws", () => {
    expect(formatToolError("bash", "exit 1")).toBe("Error: Tool 'bash' failed with Error: exit 1. Continue with available context, or choose an alternative tool.");
    expect(formatToolError("bash", { code: 2 })).toBe(`Error: Tool 'bash' failed with Error: {"code":2}. Continue with available context, or choose an alternative tool.`);
  });
});
