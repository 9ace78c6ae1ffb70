// End to end in a real terminal: `deerflow chat` (the built CLI in a PTY) against the scripted test model —
// the todo panel of a written plan and a clarification answered from the keyboard.
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { listThreads, userTexts } from "../support/requests.js";
import { statusShowsThread, submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

type Todo = { content: string; status: "pending" | "in_progress" | "completed" };
const writeTodos = (id: string, todos: Todo[]) => ({ toolCalls: [{ id, name: "write_todos", args: { todos } }] });

describe("a todo plan in the terminal", () => {
  it("shows the todo panel with the item in progress, the answer and the thread id; ctrl+t expands and collapses a long plan", async () => {
    const sb = e2e.sandbox();
    e2e.server.push(
      writeTodos("t1", [
        { content: "read the login code", status: "in_progress" },
        { content: "fix the session bug", status: "pending" },
        { content: "add a regression test", status: "pending" },
      ]),
      { content: "Plan written: three steps, starting with the login code." },
    );
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    await submit(t, "fix the login bug");

    await t.waitFor("Plan written: three steps");
    await t.waitFor("Todos 0/3 done", { where: "screen" });
    const screen = t.screen();
    expect(screen).toContain("◐ read the login code");
    expect(screen).toContain("○ fix the session bug");
    expect(screen).toContain("○ add a regression test");
    // Three items fit: nothing folded, so no hint.
    expect(screen).not.toContain("ctrl+t to expand");
    const [thread] = await listThreads(sb);
    await t.waitFor(() => statusShowsThread(t, thread!.id), { where: "screen" });
    expect(e2e.server.requests[0]!.body.tools.map((x: { function: { name: string } }) => x.function.name)).toContain("write_todos");

    // A second turn on the same thread updates the plan to seven items: the panel folds to five around the focus.
    const seven: Todo[] = Array.from({ length: 7 }, (_, i) => ({ content: `step ${i + 1} of the plan`, status: i < 2 ? "completed" : i === 2 ? "in_progress" : "pending" }));
    e2e.server.push(writeTodos("t2", seven), { content: "Seven steps now." });
    await submit(t, "plan it in more detail");
    await t.waitFor("Seven steps now.");
    await t.waitFor("Todos 2/7 done · ctrl+t to expand", { where: "screen" });
    let todos = t.screen();
    expect(todos).toContain("◐ step 3 of the plan");
    expect(todos.match(/… 1 more/g)).toHaveLength(2);
    expect(todos).not.toContain("step 1 of the plan");
    expect(todos).not.toContain("step 7 of the plan");

    await t.press("ctrl-t");
    await t.waitFor("ctrl+t to collapse", { where: "screen" });
    todos = t.screen();
    expect(todos).not.toMatch(/… \d+ more/);
    for (let i = 1; i <= 7; i++) expect(todos).toContain(`step ${i} of the plan`);

    await t.press("ctrl-t");
    await t.waitFor("ctrl+t to expand", { where: "screen" });
    expect(t.screen().match(/… 1 more/g)).toHaveLength(2);
    expect(statusShowsThread(t, thread!.id)).toBe(true);
    expect(await listThreads(sb)).toHaveLength(1);
  }, 60_000);
});

describe("a clarification in the terminal", () => {
  it("shows the question with numbered options; pressing 2 sends that option and the run continues", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({
      toolCalls: [
        {
          id: "q1",
          name: "ask_clarification",
          args: { question: "Which database should I set up?", clarification_type: "approach_choice", options: ["Postgres", "SQLite"] },
        },
      ],
    });
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    await submit(t, "set up persistence");

    await t.waitFor("3. Type your own answer", { where: "screen" });
    const screen = t.screen();
    expect(screen).toContain("Which database should I set up?");
    expect(screen).toMatch(/❯ 1\. Postgres/);
    expect(screen).toMatch(/ {2}2\. SQLite/);
    expect(screen).toContain("Type your answer…");
    expect(e2e.server.requests).toHaveLength(1);

    e2e.server.push({ content: "Setting up SQLite in data/app.db." });
    await t.type("2");
    await t.waitFor("Setting up SQLite in data/app.db.");
    // The answer went to the model as the user's next message, after the question.
    expect(e2e.server.requests).toHaveLength(2);
    expect(userTexts(e2e.server.requests[1]!).at(-1)).toBe("SQLite");
    expect(JSON.stringify(e2e.server.requests[1]!.body.messages)).toContain("Which database should I set up?");
    // The question is answered: its options left the live region and the input is a prompt again.
    await t.waitForGone("Type your own answer");
    await t.waitFor("Ask anything", { where: "screen" });
    expect(t.screen()).toMatch(/❯ SQLite/);
  }, 60_000);
});
