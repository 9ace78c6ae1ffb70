// Cases found in review: each was a silent wrong behaviour before.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver, StateSchema } from "@langchain/langgraph";
import { createMiddleware, fakeModel, tool } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { assembleMiddleware, createDeerflowAgent } from "../../src/agent/create-deerflow-agent.js";
import { AgentOptionsError } from "../../src/agent/errors.js";
import { sandboxMiddleware } from "../../src/middleware/sandbox.js";
import { DeerflowSqliteSaver } from "../../src/persistence/sqlite-saver.js";
import { LocalSandboxProvider } from "../../src/sandbox/local-provider.js";

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "deerflow-fix-"));
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const invoke = (agent: unknown, text: string, config: Record<string, unknown>) =>
  (agent as { invoke(i: unknown, c: unknown): Promise<any> }).invoke({ messages: [new HumanMessage(text)] }, { configurable: config });

describe("createDeerflowAgent review fixes", () => {
  it("a caller's stateSchema extends ThreadState: sandbox and thread_data are still recorded", async () => {
    const home = tmp();
    const agent = createDeerflowAgent(fakeModel().respond(new AIMessage("ok")), [], {
      stateSchema: new StateSchema({ custom: z.string().default("c") }),
      checkpointer: new MemorySaver(),
    });
    const out = await invoke(agent, "hi", { thread_id: "t1", deerflow_home: home });
    expect(out.custom).toBe("c");
    expect(out.sandbox).toEqual({ sandbox_id: "local:t1" });
    expect(out.thread_data.workspace_path).toBe(join(home, "threads", "t1", "workspace"));
  });

  it("a user tool named ask_clarification runs its own body (user tools win for execution too)", async () => {
    let calledWith: unknown;
    const mine = tool(
      async (args: { q: string }) => {
        calledWith = args;
        return "user tool answered";
      },
      { name: "ask_clarification", description: "mine", schema: z.object({ q: z.string() }) },
    );
    const model = fakeModel()
      .respond(new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "ask_clarification", args: { q: "x" } }] }))
      .respond(new AIMessage("done"));
    const agent = createDeerflowAgent(model, [mine], { features: { sandbox: false } });
    const out = await invoke(agent, "hi", { thread_id: "t2" });
    expect(calledWith).toEqual({ q: "x" });
    const result = out.messages.find((m: unknown) => ToolMessage.isInstance(m));
    expect(result.content).toBe("user tool answered");
    expect(out.messages.at(-1).content).toBe("done");
  });

  it("duplicate middleware names are a typed error", () => {
    const e = (() => {
      try {
        assembleMiddleware({ extraMiddleware: [createMiddleware({ name: "LoopDetection", beforeModel: () => undefined })] });
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(e).toBeInstanceOf(AgentOptionsError);
    expect((e as AgentOptionsError).code).toBe("duplicate_middleware_name");
  });

  it("a guarded saver opened in the other mode is refused", () => {
    const saver = DeerflowSqliteSaver.open(join(tmp(), "db.sqlite"), { channelMode: "full" });
    try {
      expect(() => createDeerflowAgent(fakeModel(), [], { checkpointChannelMode: "delta", checkpointer: saver })).toThrow(expect.objectContaining({ code: "checkpointer_mode_mismatch" }));
    } finally {
      saver.close();
    }
  });

  it("the sandbox acquired in beforeAgent is released in afterAgent (the middleware sees its own state)", async () => {
    const home = tmp();
    const events: string[] = [];
    const provider = new LocalSandboxProvider(home);
    const acquire = provider.acquire.bind(provider);
    provider.acquire = async (id, paths) => {
      events.push(`acquire ${id} ${paths.workspace_path}`);
      return acquire(id, paths);
    };
    provider.release = async (id) => {
      events.push(`release ${id}`);
    };
    const agent = createDeerflowAgent(fakeModel().respond(new AIMessage("ok")), [], { features: { sandbox: sandboxMiddleware({ provider }) } });
    await invoke(agent, "hi", { thread_id: "t9", deerflow_home: home });
    expect(events).toEqual([`acquire t9 ${join(home, "threads", "t9", "workspace")}`, "release local:t9"]);
  });
});
