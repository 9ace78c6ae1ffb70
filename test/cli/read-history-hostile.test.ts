// read_history attacked through the built CLI, with piiRedaction on and a small window so the thread compacts:
// a reversed range is a clear error (it used to answer "Archived messages #9–#2" with nothing under it), and a
// search by the placeholder the model saw finds the archived original while no request (summary calls included)
// carries the real address.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { isSummaryRequest, messageText } from "../support/requests.js";

const e2e = useE2E();
const EMAIL = "carol.white@private.example.net";

describe("read_history against a hostile model", () => {
  it("a reversed range is an error naming the fix; a placeholder search finds the original; the address never leaves", async () => {
    const sb = e2e.sandbox();
    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ piiRedaction: true, models: { "test-model": { model: "test-model", contextWindow: 8192 } } }));
    for (let i = 0; i < 12; i++) writeFileSync(join(sb.cwd, `f${i}.txt`), `owner ${EMAIL} file ${i}\n${"filler line ........................................\n".repeat(60)}`);
    let step = 0;
    e2e.server.setScript((req) => {
      if (isSummaryRequest(req)) return { content: "Summary: files were read." };
      const msgs = req.body.messages as any[];
      const last = msgs.at(-1);
      if (last.role === "user" && messageText(last).includes("recall")) return { toolCalls: [{ name: "read_history", args: { from: 9, to: 2 } }] };
      if (last.role === "tool" && messageText(last).includes('is before "from"')) {
        const placeholder = /\[EMAIL_[0-9a-f]{8}\]/.exec(JSON.stringify(msgs))?.[0] ?? "none";
        return { toolCalls: [{ name: "read_history", args: { search: placeholder } }] };
      }
      if (last.role === "tool" && /archived message\(s\) match/.test(messageText(last))) return { content: "found it" };
      if (last.role === "user") step = 0;
      step += 1;
      return step > 12 ? { content: "read them all" } : { toolCalls: [{ name: "read_file", args: { path: `f${step - 1}.txt` } }] };
    });
    for (const ask of ["read the files", "again, read the files"]) {
      const r = await sb.run(["run", "--yes", "-w", sb.cwd, ...(ask.startsWith("again") ? ["--continue"] : []), ask], { timeoutMs: 300_000 });
      expect(r.exitCode, r.stderr).toBe(0);
    }
    expect(e2e.server.requests.filter(isSummaryRequest).length).toBeGreaterThan(0);
    const recall = await sb.run(["run", "--yes", "-w", sb.cwd, "--continue", "recall who owns the files"], { timeoutMs: 300_000 });
    expect(recall.exitCode, recall.stderr).toBe(0);
    const lasts = e2e.server.requests.slice(-4).map((r) => {
      const m = r.body.messages.at(-1);
      return `${m.role}: ${messageText(m).slice(0, 200)}`;
    });
    expect(recall.stdout, lasts.join("\n---\n")).toBe("found it\n");
    const wire = [...e2e.server.requests, ...e2e.server.titleRequests].map((r) => JSON.stringify(r.body)).join("\n");
    const toolTexts = e2e.server.requests.flatMap((r) => (r.body.messages as any[]).filter((m) => m.role === "tool").map(messageText));
    expect(toolTexts.some((t) => t.includes('"to" (#2) is before "from" (#9): give from ≤ to'))).toBe(true);
    // The placeholder search reached the archive as the real address and found the originals.
    expect(toolTexts.some((t) => /archived message\(s\) match "\[EMAIL_[0-9a-f]{8}\]"/.test(t) && t.includes("owner [EMAIL_"))).toBe(true);
    expect(wire).not.toContain(EMAIL);
  }, 600_000);
});
