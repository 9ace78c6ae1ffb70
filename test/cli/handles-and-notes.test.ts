// Artifact handles and task notes through the built CLI, over a thread that gets compacted and resumed (every
// `deerflow run` is a new process reading the checkpoint): a long path in a tool result reaches the model as an
// `art_xxxxxxxx` handle, a read_file that passes the handle reads the real file, an invented handle is refused with
// an error result (no tool runs on it), and after the result was compacted away the handle is still listed and
// still resolves. Notes written with write_notes come back as a reminder once their call is compacted, a write over
// the size limit is refused and changes nothing, and `notes.updated` is streamed.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { readThreadView } from "../support/thread-view.js";
import { isSummaryRequest, messageText } from "../support/requests.js";

const e2e = useE2E();

const DEEP = ["quarterly-financial-reports-archive-2026", "department-of-long-directory-names", "subfolder-with-an-even-longer-descriptive-name"];
const NOTES = "Findings: report.csv has 3 rows; the total is 42.\nNext: check the CRLF line endings.";

describe("artifact handles and task notes through the built CLI", () => {
  it("round-trip through a tool call, survive compaction and resume; notes too", async () => {
    const sb = e2e.sandbox();
    // A small window so a few 6 KB reads force compaction.
    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ models: { "test-model": { model: "test-model", contextWindow: 8192 } } }));
    mkdirSync(join(sb.cwd, ...DEEP), { recursive: true });
    writeFileSync(join(sb.cwd, ...DEEP, "report.csv"), "a,b\n1,2\nTOTAL,42\n");
    for (let i = 0; i < 6; i++) writeFileSync(join(sb.cwd, `big${i}.txt`), `BIG-${i}\n${"lorem ipsum dolor sit amet ".repeat(230)}\n`);

    let handle = "";
    const seen: { handleNote?: string; fakeError?: string; hugeError?: string } = {};
    e2e.server.setScript((req) => {
      if (isSummaryRequest(req)) return { content: "Summary: the user had the files read; a report was found." };
      const msgs = req.body.messages as any[];
      // Reminders (notes, handles, the dated context) are user messages too: the conversation is the rest.
      const last = msgs.filter((m) => !(m.role === "user" && messageText(m).startsWith("<system-reminder>"))).at(-1);
      const user = [...msgs].reverse().find((m) => m.role === "user" && !messageText(m).startsWith("<system-reminder>"));
      const ask = messageText(user);
      const lastTool = [...msgs].reverse().find((m) => m.role === "tool");
      if (ask.startsWith("find")) {
        // One step per tool result so far.
        const step = msgs.filter((m) => m.role === "tool").length;
        const out = messageText(lastTool);
        if (step === 0) return { toolCalls: [{ name: "glob", args: { pattern: "**/report.csv" } }] };
        if (step === 1) {
          seen.handleNote = out;
          handle = /art_[0-9a-f]{8}/.exec(out)?.[0] ?? "no-handle";
          return { toolCalls: [{ name: "read_file", args: { path: handle } }] };
        }
        if (step === 2) return out.includes("TOTAL,42") ? { toolCalls: [{ name: "read_file", args: { path: "art_00000000" } }] } : { content: `not resolved: ${out}` };
        if (step === 3) {
          seen.fakeError = out;
          return { toolCalls: [{ name: "write_notes", args: { notes: NOTES } }] };
        }
        if (step === 4) return { toolCalls: [{ name: "write_notes", args: { notes: "x".repeat(9000) } }] };
        seen.hugeError = out;
        return { content: "found it" };
      }
      if (ask.startsWith("read big")) {
        const n = Number(ask.split(" ")[2]);
        return last.role === "user" ? { toolCalls: [{ name: "read_file", args: { path: `big${n}.txt` } }] } : { content: `read ${n}` };
      }
      if (ask.startsWith("use the handle")) {
        if (last.role === "user") {
          const listed = msgs.map(messageText).find((t) => t.includes("Artifact handles from earlier tool results"));
          const notes = msgs.map(messageText).find((t) => t.includes("Your working notes"));
          return listed && notes && listed.includes(handle) && notes.includes(NOTES) ? { toolCalls: [{ name: "read_file", args: { path: handle } }] } : { content: "handle or notes missing" };
        }
        return { content: messageText(last).includes("TOTAL,42") ? "resolved after compaction" : "not resolved" };
      }
      return { content: "?" };
    });

    const first = await sb.run(["run", "--yes", "-w", sb.cwd, "--output-format", "stream-json", "find the report"], { timeoutMs: 180_000 });
    expect(first.exitCode, first.stderr + first.stdout.slice(-3000)).toBe(0);
    const events = first.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const thread = events[0].thread_id as string;
    expect(events.at(-1)).toMatchObject({ type: "run.completed", final_text: "found it" });
    // The model saw a handle, not the path, with a note saying what it stands for.
    expect(seen.handleNote).toMatch(/art_[0-9a-f]{8} = file report\.csv/);
    expect(seen.handleNote).not.toContain(DEEP[2]);
    // The handle resolved: read_file got the real path.
    expect(events.find((e) => e.type === "tool.completed" && e.name === "read_file")).toMatchObject({ status: "ok", output: expect.stringContaining("TOTAL,42") });
    // An invented handle: an error result, the tool never ran.
    expect(seen.fakeError).toMatch(/art_00000000 is not an artifact handle of this thread.*Known handles: art_[0-9a-f]{8} \(report\.csv\)/);
    expect(seen.hugeError).toMatch(/9000 characters, over the limit of 8000/);
    expect(events.filter((e) => e.type === "notes.updated").map((e) => e.notes)).toEqual([NOTES]);

    // More runs (each a fresh process) until the glob result and the notes call are compacted away.
    let compacted = false;
    for (let i = 0; i < 6 && !compacted; i++) {
      const r = await sb.run(["run", "--yes", "--thread", thread, `read big ${i}`], { timeoutMs: 180_000 });
      expect(r.exitCode, r.stderr).toBe(0);
      compacted = /Context compacted/.test(r.stderr);
    }
    expect(compacted).toBe(true);
    const after = await sb.run(["run", "--yes", "--thread", thread, "use the handle again"], { timeoutMs: 180_000 });
    expect(after.exitCode, after.stderr).toBe(0);
    expect(after.stdout).toBe("resolved after compaction\n");
    // The request that used it no longer held the original glob result.
    const used = e2e.server.requests.filter(
      (r) => !isSummaryRequest(r) && messageText((r.body.messages as any[]).find((m: any) => m.role === "user" && messageText(m) === "use the handle again")),
    )[0]!;
    expect(JSON.stringify(used.body)).not.toContain("report.csv\\n[Long references");

    // The notes are in the saved thread (what /todos shows after `deerflow resume`).
    const view = await readThreadView(sb, thread);
    expect(view.notes).toBe(NOTES);
    expect(view.context_tokens).toBeGreaterThan(0);
  }, 600_000);
});
