// The web tools inside a real chat session (ChatSession, the lead agent, the loopback test model): `ask` mode asks
// before the first page of each domain (allow once / allow this domain for the thread), the model reads the page
// framed as untrusted content, and web_search is only offered with a provider.
import { afterEach, beforeAll, afterAll, beforeEach, describe, expect, it } from "vitest";
import { createChatSession } from "../../src/runtime/chat-session.js";
import type { RunEvent } from "../../src/runtime/events.js";
import { ALLOW_LOOPBACK_ENV } from "../../src/sandbox/address-check.js";
import { UNTRUSTED_TAG } from "../../src/vocabulary/untrusted-content.js";
import { useInProcessModel } from "../support/in-process.js";
import type { RecordedRequest } from "../support/openai-server.js";
import { type WebPageServer, startWebPageServer } from "../support/web-pages.js";

const env = useInProcessModel("deerflow-web-agent-");
let site: WebPageServer;
beforeAll(async () => {
  site = await startWebPageServer();
});
afterAll(() => site.close());
beforeEach(() => {
  process.env[ALLOW_LOOPBACK_ENV] = "1";
  site.requests.length = 0;
});
afterEach(() => {
  delete process.env[ALLOW_LOOPBACK_ENV];
});

const toolNames = (req: RecordedRequest) => ((req.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
const toolResults = (req: RecordedRequest) => (req.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === "tool").map((m) => String(m.content));

describe("web_fetch in a chat", () => {
  it("asks once per domain in ask mode: allow always covers the domain for the thread; a new domain asks again; a denial fetches nothing", async () => {
    const { server, home, cwd } = env();
    const docs = `${site.origin}/docs/retry`;
    const issue = `${site.origin}/example/widgetlib/issues/1234`;
    const other = `http://localhost:${site.port}/notes.txt`;
    server.setScript([
      { toolCalls: [{ id: "f1", name: "web_fetch", args: { url: docs } }] },
      { toolCalls: [{ id: "f2", name: "web_fetch", args: { url: issue } }] },
      { toolCalls: [{ id: "f3", name: "web_fetch", args: { url: other } }] },
      { content: "Read them." },
    ]);
    const s = createChatSession({ home, model: "test-model", cwd });
    expect(s.approval.mode).toBe("ask");
    const events: RunEvent[] = [];
    await s.send(
      { prompt: "read the retry docs and the issue" },
      (e) => {
        events.push(e);
        if (e.type === "approval.requested") setTimeout(() => s.respondApproval(e.id, e.tool_call_id === "f1" ? "allow_always" : "deny"), 5);
      },
      new AbortController().signal,
    );
    const asked = events.filter((e): e is Extract<RunEvent, { type: "approval.requested" }> => e.type === "approval.requested");
    expect(asked.map((a) => [a.tool_call_id, a.kind, a.command])).toEqual([
      ["f1", "tool", `fetch ${docs}`],
      ["f3", "tool", `fetch ${other}`],
    ]);
    expect(asked[0]!.reason).toContain("new domain, 127.0.0.1");
    const done = events.filter((e): e is Extract<RunEvent, { type: "tool.completed" }> => e.type === "tool.completed");
    expect(done.map((e) => [e.tool_call_id, e.status])).toEqual([
      ["f1", "ok"],
      ["f2", "ok"],
      ["f3", "error"],
    ]);
    expect(done[0]!.output.split("\n")[0]).toMatch(new RegExp(`^Fetched [\\d.]+ KB from ${docs} \\(HTTP 200, text/html, Markdown from HTML\\)$`));
    // Only the two allowed pages were requested.
    expect(site.requests.map((r) => r.path)).toEqual(["/docs/retry", "/example/widgetlib/issues/1234"]);
    // What the model read: the page inside the untrusted frame.
    const last = server.requests.at(-1)!;
    const results = toolResults(last);
    expect(results[0]).toContain(`<${UNTRUSTED_TAG} source="${docs}">`);
    expect(results[0]).toContain("# Configuring the retry policy");
    expect(results[2]).toMatch(/^Denied: web_fetch \(fetch http:\/\/localhost:\d+\/notes\.txt\) was not approved/);
  });

  it("offers web_fetch always and web_search only with a provider", async () => {
    const { server, home, cwd } = env();
    server.setScript([{ content: "hi" }]);
    const s = createChatSession({ home, model: "test-model", cwd });
    await s.send({ prompt: "hello" }, () => {}, new AbortController().signal);
    const names = toolNames(server.requests.find((r) => r.body.tools)!);
    expect(names).toContain("web_fetch");
    expect(names).not.toContain("web_search");
  });
});
