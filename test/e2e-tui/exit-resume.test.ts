// End to end in a real terminal: leaving the chat (Ctrl+C twice, Ctrl+D) and coming back (`deerflow resume`).
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { isEvaluator, listThreads, userTexts, verdict } from "../support/requests.js";
import { inputText, statusLine, statusShowsThread, submit, typeEchoed, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("leaving the chat", () => {
  it("ctrl+c clears typed text first; on an empty input it arms, the second press exits 0 and prints how to resume", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "Noted, the thread exists now." });
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    await submit(t, "start a thread");
    await t.waitFor("Noted, the thread exists now.");
    const [thread] = await listThreads(sb);

    await typeEchoed(t, "half a thought");
    await t.press("ctrl-c");
    await t.waitFor(() => inputText(t) === "", { where: "screen" });
    expect(t.screen()).not.toContain("Press Ctrl+C again to exit");
    expect(t.hasExited).toBe(false);

    await t.press("ctrl-c");
    await t.waitFor("Press Ctrl+C again to exit", { where: "screen" });
    expect(t.hasExited).toBe(false);
    await t.press("ctrl-c");
    expect(await t.exited).toMatchObject({ exitCode: 0 });
    await t.waitFor(`Continue it with: deerflow resume ${thread!.id}`);
  }, 60_000);

  it("the armed ctrl+c expires: after ~2 s one press only arms again", async () => {
    const sb = e2e.sandbox();
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    await t.press("ctrl-c");
    await t.waitFor("Press Ctrl+C again to exit", { where: "screen" });
    await t.waitForGone("Press Ctrl+C again to exit", { timeoutMs: 30_000 });
    await t.press("ctrl-c");
    await t.waitFor("Press Ctrl+C again to exit", { where: "screen" });
    expect(t.hasExited).toBe(false);
  }, 60_000);

  it("ctrl+d exits on an empty input only; without a thread nothing is said about resuming", async () => {
    const sb = e2e.sandbox();
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    await typeEchoed(t, "draft");
    await t.press("ctrl-d");
    await sleep(400);
    await t.settle();
    expect(t.hasExited).toBe(false);
    expect(inputText(t)).toBe("draft");
    await t.press("ctrl-u");
    await t.waitFor(() => inputText(t) === "", { where: "screen" });
    await t.press("ctrl-d");
    expect(await t.exited).toMatchObject({ exitCode: 0 });
    await t.settle();
    expect(t.scrollback()).not.toContain("deerflow resume");
    expect(await listThreads(sb)).toEqual([]);
  }, 60_000);
});

describe("deerflow resume", () => {
  it("shows the earlier exchange and the thread in the status line; a new prompt continues it", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "The first answer, kept on disk." });
    const run = await sb.run(["run", "--output-format", "json", "the first question"]);
    expect(run.exitCode).toBe(0);
    const id = JSON.parse(run.stdout).thread_id as string;

    const t = tui.spawn(sb, ["resume", id]);
    await t.waitFor(`Resumed thread ${id} · Test thread title`);
    await waitReady(t);
    // From the first frame the screen says which thread is loading, and it offers no new thread before it is drawn.
    // eslint-disable-next-line no-control-regex
    const raw = t.raw().replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
    expect(raw).toContain(`Loading thread ${id}…`);
    expect(raw.indexOf(`Loading thread ${id}…`)).toBeLessThan(raw.indexOf("Resumed thread"));
    expect(raw.indexOf("Ask anything")).toBeGreaterThan(raw.indexOf("Resumed thread"));
    expect(raw).not.toContain("new thread");
    const screen = t.screen();
    expect(screen).toMatch(/❯ the first question/);
    expect(screen).toMatch(/● The first answer, kept on disk\./);
    await t.waitFor(() => statusShowsThread(t, id) && statusLine(t).includes("Test thread title"), { where: "screen" });

    e2e.server.push({ content: "Second answer on the same thread." });
    await submit(t, "and a follow-up");
    await t.waitFor("Second answer on the same thread.");
    expect(userTexts(e2e.server.requests[1]!)).toEqual(["the first question", "and a follow-up"]);
    expect((await listThreads(sb)).map((x) => x.id)).toEqual([id]);
  }, 60_000);

  it("a thread left on a question shows it with its options, ready to answer with ↓ and enter", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({
      toolCalls: [{ id: "q1", name: "ask_clarification", args: { question: "Which database?", clarification_type: "approach_choice", options: ["Postgres", "SQLite"] } }],
    });
    const run = await sb.run(["run", "set up the database"]);
    expect(run.exitCode).toBe(3);
    const [thread] = await listThreads(sb);

    const t = tui.spawn(sb, ["resume", thread!.id]);
    await t.waitFor("3. Type your own answer", { where: "screen" });
    const screen = t.screen();
    expect(screen).toMatch(/❯ set up the database/);
    expect(screen).toContain("Which database?");
    expect(screen).toMatch(/❯ 1\. Postgres/);
    expect(screen).toContain("2. SQLite");
    expect(screen).toContain("Type your answer…");
    expect(statusShowsThread(t, thread!.id)).toBe(true);

    e2e.server.push({ content: "SQLite it is." });
    await t.press("down");
    await t.waitFor(/❯ 2\. SQLite/, { where: "screen" });
    await t.press("enter");
    await t.waitFor("SQLite it is.");
    expect(userTexts(e2e.server.requests[1]!).at(-1)).toBe("SQLite");
  }, 60_000);

  it("chat -c reopens the latest thread and chat --thread <id> a named one; an unknown id exits 2 with one line", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "Answer in the older thread." }, { content: "Answer in the newer thread." });
    const older = JSON.parse((await sb.run(["run", "--output-format", "json", "older question"])).stdout).thread_id as string;
    const newer = JSON.parse((await sb.run(["run", "--output-format", "json", "newer question"])).stdout).thread_id as string;

    const latest = tui.spawn(sb, ["chat", "-c"]);
    await latest.waitFor(`Resumed thread ${newer}`);
    expect(latest.screen()).toContain("Answer in the newer thread.");
    await latest.kill();

    const named = tui.spawn(sb, ["chat", "--thread", older]);
    await named.waitFor(`Resumed thread ${older}`);
    expect(named.screen()).toContain("Answer in the older thread.");
    await named.kill();

    const unknown = tui.spawn(sb, ["resume", "nosuchthread"]);
    const exit = await unknown.exited;
    expect(exit.exitCode).toBe(2);
    await unknown.settle();
    expect(unknown.scrollback()).toMatch(/deerflow: Thread nosuchthread not found\. List threads with/);
  }, 60_000);

  it("chat --goal works toward the objective: the status line shows the goal, then achieved", async () => {
    const sb = e2e.sandbox();
    e2e.server.setScript((req) => (isEvaluator(req) ? verdict({ satisfied: true, blocker: "none", reason: "the file exists" }) : { content: "Created hello.txt." }));
    const t = tui.spawn(sb, ["chat", "--goal", "hello.txt exists"]);
    await t.waitFor("Created hello.txt.");
    await t.waitFor("goal: achieved", { where: "screen" });
    expect(t.scrollback()).toContain("/goal hello.txt exists");
    expect(t.scrollback()).toMatch(/Goal check: met — the file exists/);
  }, 60_000);

  it("deerflow chat without a terminal exits 2 with one line pointing to deerflow run", async () => {
    const sb = e2e.sandbox();
    const r = await sb.run(["chat"]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("deerflow run");
    expect(e2e.server.requests).toHaveLength(0);
  });
});
