// The lead agent's hook order, traced through a real two-iteration run: before* hooks in list order, after*
// hooks in reverse, each wrapper nested inside the ones above it — exactly what LEAD_MIDDLEWARE_ORDER documents.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { type AgentMiddleware, fakeModel } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { createDeerflowAgent } from "../../src/agent/create-deerflow-agent.js";
import { LEAD_MIDDLEWARE_ORDER, LEAD_SYSTEM_PROMPT, leadAgentMiddleware, leadAgentTools } from "../../src/agent/lead-agent.js";
import { headlessBroker } from "../../src/sandbox/approvals.js";
import { deferredToolCatalog } from "../../src/tools/tool-search.js";

const HOOKS = ["beforeAgent", "beforeModel", "afterModel", "afterAgent"] as const;
type Fn = (...args: any[]) => any;

function traced(mw: AgentMiddleware, trace: string[]): AgentMiddleware {
  const copy: Record<string, unknown> = { ...mw };
  const m = mw as unknown as Record<string, unknown>;
  for (const hook of HOOKS) {
    const h = m[hook] as Fn | { hook: Fn; canJumpTo?: unknown } | undefined;
    if (!h) continue;
    const wrap =
      (fn: Fn) =>
      (...args: unknown[]) => {
        trace.push(`${hook} ${mw.name}`);
        return fn(...args);
      };
    copy[hook] = typeof h === "function" ? wrap(h) : { ...h, hook: wrap(h.hook) };
  }
  for (const hook of ["wrapModelCall", "wrapToolCall"] as const) {
    const h = m[hook] as Fn | undefined;
    if (!h) continue;
    copy[hook] = async (req: unknown, handler: Fn) => {
      trace.push(`${hook}> ${mw.name}`);
      try {
        return await h(req, handler);
      } finally {
        trace.push(`${hook}< ${mw.name}`);
      }
    };
  }
  return copy as unknown as AgentMiddleware;
}

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("lead agent middleware order", () => {
  it("assembles exactly the documented list", () => {
    const opts = { model: fakeModel(), channelMode: "full" as const, approval: { mode: "ask" as const, broker: headlessBroker({ yes: false }) } };
    const skills = { skills: [{ name: "s", description: "d", dir: "/nonexistent", scope: "user" as const, virtualPath: "/mnt/skills/s/SKILL.md" }], problems: [] };
    const mcp = { tools: [], deferred: deferredToolCatalog([{ name: "mcp__s__t", summary: "t", description: "t" }]) };
    const all = leadAgentMiddleware({
      ...opts,
      planMode: true,
      supportsVision: true,
      maxTurns: 10,
      taskTool: {},
      compaction: { contextWindow: 32_000 },
      mcp,
      piiRedaction: true,
      skills,
      memory: true,
      hooks: {
        hooks: [
          { event: "PreToolUse" as const, matcher: "", command: "true", timeoutSeconds: 1, file: "/x/.deerflowrc" },
          { event: "Stop" as const, matcher: "", command: "true", timeoutSeconds: 1, file: "/x/.deerflowrc" },
        ],
        cwd: "/",
      },
    }).map((m) => m.name);
    expect(all).toEqual([...LEAD_MIDDLEWARE_ORDER]);
    // Optional members drop out without moving the others.
    const plain = leadAgentMiddleware(opts).map((m) => m.name);
    const optional = [
      "Summarization",
      "ViewImage",
      "TurnLimit",
      "SubagentLimit",
      "DelegationLedger",
      "DeferredToolFilter",
      "McpApproval",
      "PiiRedaction",
      "SkillActivation",
      "Memory",
      "ToolHooks",
      "StopHooks",
    ];
    expect(plain).toEqual(LEAD_MIDDLEWARE_ORDER.filter((n) => !optional.includes(n)));
  });

  it("runs the hooks of a two-iteration run in the documented order", async () => {
    const home = mkdtempSync(join(tmpdir(), "deerflow-order-"));
    dirs.push(home);
    const opts = { model: fakeModel(), channelMode: "full" as const, approval: { mode: "ask" as const, broker: headlessBroker({ yes: false }) }, planMode: true, supportsVision: true, maxTurns: 10 };
    const stack = leadAgentMiddleware(opts);
    const trace: string[] = [];
    const model = fakeModel()
      .respond(new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "ls", args: { path: "." } }], usage_metadata: { input_tokens: 5, output_tokens: 1, total_tokens: 6 } }))
      .respond(new AIMessage({ content: "done", usage_metadata: { input_tokens: 7, output_tokens: 1, total_tokens: 8 } }));
    const agent = createDeerflowAgent(model, leadAgentTools({}), {
      systemPrompt: LEAD_SYSTEM_PROMPT,
      middleware: stack.map((m) => traced(m, trace)),
      checkpointer: new MemorySaver(),
    }) as unknown as { invoke(i: unknown, c: unknown): Promise<{ messages: AIMessage[] }> };
    const out = await agent.invoke({ messages: [new HumanMessage("list the files")] }, { configurable: { thread_id: "order", deerflow_home: home }, recursionLimit: 200 });
    expect(out.messages.at(-1)!.content).toBe("done");

    // What the documented order implies.
    const has = (hook: string) => stack.filter((m) => (m as unknown as Record<string, unknown>)[hook]).map((m) => m.name);
    const forward = (hook: string) => has(hook).map((n) => `${hook} ${n}`);
    const backward = (hook: string) => forward(hook).reverse();
    const nest = (hook: string) => [
      ...has(hook).map((n) => `${hook}> ${n}`),
      ...has(hook)
        .reverse()
        .map((n) => `${hook}< ${n}`),
    ];
    const iteration = [...forward("beforeModel"), ...nest("wrapModelCall"), ...backward("afterModel")];
    const expected = [...forward("beforeAgent"), ...iteration, ...nest("wrapToolCall"), ...iteration, ...backward("afterAgent")];
    expect(trace).toEqual(expected);
    // The list is not trivially short: every hook kind is exercised by several middlewares.
    for (const hook of ["beforeAgent", "beforeModel", "afterModel", "afterAgent", "wrapModelCall", "wrapToolCall"]) expect(has(hook).length).toBeGreaterThan(1);
  });
});
