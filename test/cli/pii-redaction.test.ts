// PII redaction through the CLI (`piiRedaction: true` in .deerflowrc), read off the requests the loopback
// provider received: the user's e-mail, card number and API key, and the e-mail and phone number a tool printed,
// never reach the wire; each value has one placeholder for the whole thread (another thread gets another one);
// the model's tool call and answer that use a placeholder get the real value back (the file written holds the real
// address, the final answer too); the stored thread keeps the user's text unchanged. Off by default: the same
// prompt goes out as typed. The configuration error is the built CLI's (exit code, one line); the runs drive main()
// in-process.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readThreadView } from "../support/thread-view.js";
import type { RecordedRequest } from "../support/openai-server.js";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import { messageText } from "../support/requests.js";

const e2e = useE2E();

const EMAIL = "jane.doe@example.com";
const CARD = "4111 1111 1111 1111";
const KEY = "sk-live0123456789abcdefghij";
const TOOL_EMAIL = "bob.smith@corp.example.org";
const TOOL_PHONE = "+44 20 7946 0958";
const PROMPT = `Write ${EMAIL} into to.txt; my card is ${CARD} and my key ${KEY}.`;

const wire = (reqs: RecordedRequest[]) => reqs.map((r) => JSON.stringify(r.body)).join("\n");

/** Turn 1: write the placeholder it was given into to.txt; turn 2: a command that prints PII; turn 3: answer with the placeholder. */
function script() {
  return (req: RecordedRequest) => {
    const msgs = req.body.messages as any[];
    const user = msgs
      .filter((m) => m.role === "user")
      .map(messageText)
      .join("\n");
    const placeholder = /\[EMAIL_[0-9a-f]{8}\]/.exec(user)?.[0] ?? EMAIL;
    const tools = msgs.filter((m) => m.role === "tool").length;
    if (tools === 0) return { toolCalls: [{ name: "write_file", args: { path: "to.txt", content: `to: ${placeholder}\n` } }] };
    if (tools === 1) return { toolCalls: [{ name: "bash", args: { command: `cat to.txt; echo "cc ${TOOL_EMAIL} tel ${TOOL_PHONE}"` } }] };
    return { content: `Done: wrote ${placeholder} to to.txt.` };
  };
}

describe("piiRedaction through the CLI", () => {
  it("masks PII from the user and from tool output on the wire, restores it in tool calls and answers, and stores the thread unchanged", async () => {
    const sb = e2e.sandbox();
    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ piiRedaction: true }));
    e2e.server.setScript(script());
    const r = await runCli(sb, ["run", "--yes", "-w", sb.cwd, "--output-format", "json", PROMPT]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);

    const sent = wire([...e2e.server.requests, ...e2e.server.titleRequests]);
    for (const secret of [EMAIL, CARD, KEY, TOOL_EMAIL, "7946 0958"]) expect(sent).not.toContain(secret);
    // One placeholder per value, the same in every request of the thread (user text, tool call, tool output).
    const placeholders = new Set(sent.match(/\[EMAIL_[0-9a-f]{8}\]/g));
    expect(placeholders.size).toBe(2); // the user's address and the one the command printed
    expect(sent).toMatch(/\[CARD_[0-9a-f]{8}\]/);
    expect(sent).toMatch(/\[SECRET_[0-9a-f]{8}\]/);
    expect(sent).toMatch(/\[PHONE_[0-9a-f]{8}\]/);
    expect(e2e.server.titleRequests.length).toBeGreaterThan(0);

    // The model's placeholder reached the tool as the real value, and the answer reads with it.
    expect(readFileSync(join(sb.cwd, "to.txt"), "utf8")).toBe(`to: ${EMAIL}\n`);
    expect(out.final_text).toBe(`Done: wrote ${EMAIL} to to.txt.`);

    // The stored thread keeps what the user typed and what the tool printed.
    const view = await readThreadView(sb, out.thread_id);
    expect(view.entries.find((e) => e.kind === "user")).toMatchObject({ text: PROMPT });
    const bash = view.entries.find((e) => e.kind === "tool" && e.name === "bash") as { output: string };
    expect(bash.output).toContain(TOOL_EMAIL);

    // Another thread: the same address gets another placeholder.
    const first = [...placeholders].find((p) => wire(e2e.server.requests.slice(0, 1)).includes(p))!;
    e2e.server.requests.length = 0;
    e2e.server.setScript([{ content: "ok" }]);
    const other = await runCli(sb, ["run", "--yes", "-w", sb.cwd, `hello ${EMAIL}`]);
    expect(other.exitCode, other.stderr).toBe(0);
    const again = wire(e2e.server.requests);
    expect(again).not.toContain(EMAIL);
    expect(again).toMatch(/\[EMAIL_[0-9a-f]{8}\]/);
    expect(again).not.toContain(first);
  }, 180_000);

  it("streamed deltas show the real values, never a placeholder (stream-json)", async () => {
    const sb = e2e.sandbox();
    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ piiRedaction: true }));
    e2e.server.setScript((req) => {
      const p = /\[EMAIL_[0-9a-f]{8}\]/.exec(JSON.stringify(req.body.messages))?.[0] ?? "?";
      return { content: `Sure, I will write to ${p} right away; ${p} again.` };
    });
    const r = await runCli(sb, ["run", "--output-format", "stream-json", `note ${EMAIL}`]);
    expect(r.exitCode, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const deltas = events.filter((e) => e.type === "message.delta").map((e) => e.text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(`Sure, I will write to ${EMAIL} right away; ${EMAIL} again.`);
    expect(r.stdout).not.toMatch(/\[EMAIL_[0-9a-f]{8}\]/);
  }, 120_000);

  it("is off by default: the prompt goes out as typed", async () => {
    const sb = e2e.sandbox();
    e2e.server.setScript([{ content: "ok" }]);
    const r = await runCli(sb, ["run", "--yes", `mail ${EMAIL}`]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(wire(e2e.server.requests)).toContain(EMAIL);
  }, 120_000);

  it("a bad value is a configuration error naming the key", async () => {
    const sb = e2e.sandbox();
    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ piiRedaction: "yes" }));
    const r = await sb.run(["run", "hi"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("piiRedaction");
  }, 60_000);
});
