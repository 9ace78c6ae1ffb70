// `/compact [focus]` through the ChatSession (what the TUI's command calls), against the loopback model and a real
// SQLite home: the older turns are summarized with the focus in the summary request, archived, and the next turn
// sends the summary right after the reminder while the first and latest user messages stay.
import { beforeEach, describe, expect, it } from "vitest";
import { createChatSession } from "../../src/runtime/chat-session.js";
import type { TestModelServer } from "../support/openai-server.js";
import { useInProcessModel } from "../support/in-process.js";
import { isSummaryRequest, messageText } from "../support/requests.js";

const env = useInProcessModel("deerflow-compact-");
let server: TestModelServer;
let home: string;
let cwd: string;
beforeEach(() => ({ server, home, cwd } = env()));

const signal = () => new AbortController().signal;

describe("/compact", () => {
  it("summarizes and archives the older turns now, with the focus; nothing to do on a short thread", async () => {
    server.setScript((req) => (isSummaryRequest(req) ? { content: "Summary: talked about the parser." } : { content: `answer ${"y".repeat(3000)}` }));
    const s = createChatSession({ home, model: "test-model", cwd });
    expect(await s.compact()).toBeNull(); // no thread yet
    await s.send({ prompt: "first: explain the parser" }, () => {}, signal());
    expect(await s.compact()).toBeNull(); // one exchange: nothing older than the recent turns
    for (let i = 0; i < 30; i++) await s.send({ prompt: `question ${i}` }, () => {}, signal());
    const info = await s.compact("the parser bug");
    expect(info).not.toBeNull();
    expect(info!.messages).toBeGreaterThan(10);
    expect(info!.tokens_after).toBeLessThan(info!.tokens_before);
    const summaryReq = server.requests.filter(isSummaryRequest).at(-1)!;
    expect(messageText(summaryReq.body.messages[1])).toContain("Focus on: the parser bug");
    await s.send({ prompt: "last question" }, () => {}, signal());
    const last = server.requests.filter((r) => !isSummaryRequest(r)).at(-1)!.body.messages as any[];
    expect(messageText(last[1])).toContain("<system-reminder>");
    expect(messageText(last[2])).toContain("Summary: talked about the parser.");
    const users = last.filter((m) => m.role === "user").map(messageText);
    expect(users).toContain("first: explain the parser");
    expect(users).toContain("last question");
    expect(users).not.toContain("question 3");
  }, 180_000);
});
