// view_image through a real agent and the loopback model: metadata in state, bytes to the next model call only,
// a changed file is not shown; present_files lands in `artifacts`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { tool } from "langchain";
import { z } from "zod";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDeerflowAgent } from "../../src/agent/create-deerflow-agent.js";
import { createFileTools } from "../../src/tools/file-tools.js";
import { startTestModelServer, type TestModelServer } from "../support/openai-server.js";

// 1x1 transparent PNG.
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

let server: TestModelServer;
let home: string;
beforeAll(async () => {
  server = await startTestModelServer();
});
afterAll(() => server.close());
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
  server.setScript([]);
  server.requests.length = 0;
});

function agent(extraTools: StructuredToolInterface[] = []) {
  home = mkdtempSync(join(tmpdir(), "deerflow-vision-"));
  // Non-streaming: invoke() on a streaming ChatOpenAI would try to fetch a tokenizer from the network.
  const model = new ChatOpenAI({ model: "test-model", apiKey: "k", configuration: { baseURL: server.url }, useResponsesApi: false, streaming: false, maxRetries: 0 });
  const tools = [...createFileTools().filter((t) => t.name !== "view_image"), ...extraTools];
  return createDeerflowAgent(model, tools, { features: { vision: true }, checkpointer: new MemorySaver() }) as unknown as {
    invoke(i: unknown, c: unknown): Promise<any>;
  };
}

const imageBlocks = (i: number) => (server.requests[i]!.body.messages as { content: unknown }[]).flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === "image_url");

describe("ViewImage", () => {
  it("shows the viewed image to the next model call only; state keeps metadata and sha256, not bytes", async () => {
    const a = agent();
    const config = { configurable: { thread_id: "v1", deerflow_home: home } };
    const ws = join(home, "threads", "v1", "workspace");
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, "dot.png"), PNG);
    server.push({ toolCalls: [{ id: "i1", name: "view_image", args: { image_path: "dot.png" } }] }, { content: "a dot" }, { content: "second turn" });
    const out = await a.invoke({ messages: [new HumanMessage("look")] }, config);
    expect(imageBlocks(0)).toHaveLength(0);
    expect(imageBlocks(1)).toHaveLength(1);
    expect((imageBlocks(1)[0] as any).image_url.url).toBe(`data:image/png;base64,${PNG.toString("base64")}`);
    const meta = out.viewed_images["/mnt/user-data/workspace/dot.png"];
    expect(meta).toMatchObject({ mime_type: "image/png", size: PNG.length });
    expect(meta.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(out.viewed_images)).not.toContain(PNG.toString("base64"));
    await a.invoke({ messages: [new HumanMessage("again")] }, config);
    expect(imageBlocks(2)).toHaveLength(0);
  });

  it("a file changed after viewing is not shown; the model is told to view it again", async () => {
    // A second tool in the same round rewrites the image after view_image has recorded its sha256.
    const mutate = tool(
      async () => {
        await new Promise((r) => setTimeout(r, 150));
        writeFileSync(join(home, "threads", "v2", "workspace", "dot.png"), Buffer.concat([PNG, Buffer.from("changed")]));
        return "rewrote it";
      },
      { name: "mutate", description: "rewrite the image", schema: z.object({}) },
    );
    const a = agent([mutate]);
    const ws = join(home, "threads", "v2", "workspace");
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, "dot.png"), PNG);
    server.push(
      {
        toolCalls: [
          { id: "i1", name: "view_image", args: { image_path: "dot.png" } },
          { id: "m1", name: "mutate", args: {} },
        ],
      },
      { content: "ok" },
    );
    await a.invoke({ messages: [new HumanMessage("look")] }, { configurable: { thread_id: "v2", deerflow_home: home } });
    expect(imageBlocks(1)).toHaveLength(0);
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain("changed or disappeared after you viewed it");
  });

  it("present_files declares outputs into artifacts", async () => {
    const a = agent();
    const out = join(home, "threads", "p1", "outputs");
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "report.md"), "# report");
    server.push({ toolCalls: [{ id: "p1", name: "present_files", args: { filepaths: ["/mnt/user-data/outputs/report.md"] } }] }, { content: "presented" });
    const result = await a.invoke({ messages: [new HumanMessage("present")] }, { configurable: { thread_id: "p1", deerflow_home: home } });
    expect(result.artifacts).toEqual(["/mnt/user-data/outputs/report.md"]);
  });
});
