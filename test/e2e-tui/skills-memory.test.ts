// Skills and memory in a real terminal: `/skills` lists what is installed (a skill named like a built-in command is
// shadowed, the built-in runs); `/<skill> request` sends the skill's text with the request. Memory: after a run the
// chat extracts in the background, and leaving while the extraction call hangs exits at once and hands the run back
// to the queue; the next chat extracts it and says it waits for review (it reaches no model yet); `/memory pending`
// shows it, `/memory approve` puts it in effect, `/memory` shows, edits and forgets; a new thread's reminder carries
// the fact only once approved.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "../support/openai-server.js";
import { useE2E } from "../support/e2e.js";
import { submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();
const textOf = (m: any): string => (typeof m?.content === "string" ? m.content : Array.isArray(m?.content) ? m.content.map((b: any) => b?.text ?? "").join("") : "");
const userTexts = (r: RecordedRequest) => r.body.messages.filter((m: any) => m.role === "user").map(textOf) as string[];

function writeSkill(root: string, name: string, description: string, body: string) {
  mkdirSync(join(root, name), { recursive: true });
  writeFileSync(join(root, name, "SKILL.md"), `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`);
}

describe("skills in the chat", () => {
  it("/skills lists them, /<skill> request activates one; a skill named like a built-in command does not replace it", async () => {
    const sb = e2e.sandbox();
    const skills = join(sb.cwd, ".deerflow", "skills");
    writeSkill(skills, "release-notes", "Write release notes from the git log.", "RN-BODY: group by feature.");
    writeSkill(skills, "help", "A skill that tries to take over /help.", "HELP-SKILL-BODY");
    e2e.server.push({ content: "Release notes drafted." });
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    await submit(t, "/skills");
    await t.waitFor("/release-notes — Write release notes from the git log. [project]");
    await t.waitFor("/help (shadowed by the built-in command");
    await submit(t, "/help");
    await t.waitFor("/compact [focus]"); // the built-in help, not the skill
    expect(e2e.server.requests).toHaveLength(0);

    await submit(t, "/release-notes for v2");
    await t.waitFor("Release notes drafted.");
    const users = userTexts(e2e.server.requests[0]!);
    const skillAt = users.findIndex((u) => u.includes("RN-BODY: group by feature."));
    expect(skillAt).toBeGreaterThanOrEqual(0);
    expect(users.indexOf("/release-notes for v2")).toBeGreaterThan(skillAt);
    expect(users.join("\n")).not.toContain("HELP-SKILL-BODY");
  }, 90_000);
});

describe("memory in the chat", () => {
  it("leaving while the extraction call hangs exits at once and keeps the run queued; the next chat learns it for review; /memory pending and approve put it in effect; /memory shows, edits and forgets", async () => {
    const sb = e2e.sandbox();
    e2e.server.setScript(() => ({ content: "Understood." }));
    e2e.server.memoryReply = { hang: true };
    const first = tui.spawn(sb, ["chat", "-w", sb.cwd]);
    await waitReady(first);
    await submit(first, "I always want answers in British English.");
    await first.waitFor("Understood.");
    // The background extraction has reached the model, which never answers; leaving must not wait for it.
    await first.waitFor(() => e2e.server.memoryRequests.length === 1, { timeoutMs: 30_000 });
    await submit(first, "/exit");
    expect(await first.exited).toMatchObject({ exitCode: 0 });
    const pending = await sb.run(["memory", "pending", "--json"]);
    expect(JSON.parse(pending.stdout).runs).toHaveLength(1);

    e2e.server.memoryReply = { content: JSON.stringify({ facts: [{ scope: "global", text: "The user wants answers in British English." }] }) };
    const second = tui.spawn(sb, ["chat", "-w", sb.cwd]);
    await waitReady(second);
    await second.waitFor("Learned (pending your review): The user wants answers in British English. — /memory pending", { timeoutMs: 30_000 });
    const review = JSON.parse((await sb.run(["memory", "pending", "--json"])).stdout);
    expect(review.runs).toHaveLength(0);
    const [fact] = review.facts;
    expect(fact.text).toBe("The user wants answers in British English.");
    // Pending: this chat's next request does not carry it.
    e2e.server.memoryReply = { content: '{"facts": []}' };
    await submit(second, "before approval");
    await second.waitFor(() => userTexts(e2e.server.requests.at(-1)!).some((u) => u.includes("before approval")));
    expect(userTexts(e2e.server.requests.at(-1)!).join("\n")).not.toContain("British English.");
    await submit(second, "/memory pending");
    await second.waitFor(new RegExp(`#${fact.id}\\s+global\\s+The user wants answers in British English\\.`));
    await submit(second, `/memory approve ${fact.id}`);
    await second.waitFor("Approved (shown in new threads):");

    await submit(second, "/memory");
    await second.waitFor(`#${fact.id} (global) The user wants answers in British English.`);
    await submit(second, `/memory edit ${fact.id} The user writes British English (colour, organise).`);
    await second.waitFor(/Changed #\d+: The user writes British English \(colour, organise\)\./);
    // Approved facts take effect in new threads (the reminder is written once per thread and day).
    await submit(second, "/clear");
    await second.waitFor("New thread: the next message starts it.");
    await submit(second, "hello");
    await second.waitFor(() => userTexts(e2e.server.requests.at(-1)!).some((u) => u.includes("hello")));
    const reminder =
      userTexts(e2e.server.requests.at(-1)!)
        .filter((u) => u.includes("Today's date"))
        .at(-1) ?? ""; // this run's reminder
    expect(reminder).toContain("- (global) The user writes British English (colour, organise).");

    const [edited] = JSON.parse((await sb.run(["memory", "list", "--json"])).stdout);
    await submit(second, `/memory forget ${edited.id}`);
    await second.waitFor("Forgot 1 fact.");
    await submit(second, "/memory");
    await second.waitFor("Nothing remembered yet.");
  }, 120_000);
});
