// The ChatController (everything the chat does apart from drawing) with a real ChatStore and a REAL ChatSession
// against the loopback OpenAI test server and real SQLite in a temp home. The test drives it the way the App does
// (submit / cancel / answerApproval / cycleApproval / exit) and reads the store the way the screen does.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { type ChatSession, type TranscriptEntry, createChatSession } from "../../src/runtime/chat-session.js";
import { ChatController } from "../../src/tui/controller.js";
import { RESUME_DRAWN_CHARS, RESUME_DRAWN_ENTRIES, recentTurns } from "../../src/tui/thread-transcript.js";
import type { ChatState, TranscriptItem } from "../../src/tui/state/types.js";
import { ChatStore } from "../../src/tui/store.js";
import { loadingText } from "../../src/tui/format.js";
import type { ScriptedReply, TestModelServer } from "../support/openai-server.js";
import { useInProcessModel } from "../support/in-process.js";
import { isEvaluator, userTexts } from "../support/requests.js";
import { until } from "../support/wait.js";
import { trustProject } from "../support/trust.js";
import { pathWithout } from "../support/confinement.js";

const cleanups: (() => Promise<void>)[] = [];
// A test that left a run going (it failed midway) must not write into the removed home.
const env = useInProcessModel("deerflow-controller-", async () => {
  for (const c of cleanups.splice(0)) await c();
});
let server: TestModelServer;
let home: string;
let cwd: string;
beforeEach(() => ({ server, home, cwd } = env()));

interface Harness {
  store: ChatStore;
  ctl: ChatController;
  /** The session loadSession returned (set once loaded). */
  session: () => ChatSession;
  exits: unknown[];
  state: () => ChatState;
  /** Items of one kind. */
  items: <K extends TranscriptItem["kind"]>(kind: K) => Extract<TranscriptItem, { kind: K }>[];
  notices: (level?: "info" | "warning" | "error") => string[];
  /** Waits until nothing runs. */
  idle: () => Promise<void>;
}

function harness(opts: { loadSession?: () => Promise<ChatSession>; store?: ChatStore } = {}): Harness {
  const store = opts.store ?? new ChatStore();
  const exits: unknown[] = [];
  let session: ChatSession | undefined;
  const ctl = new ChatController({
    store,
    loadSession:
      opts.loadSession ??
      (async () => {
        session = createChatSession({ home, model: "test-model", cwd });
        return session;
      }),
    exit: (err) => exits.push(err),
  });
  cleanups.push(async () => {
    ctl.cancel();
    await until(() => !ctl.busy, "the controller to go idle", 10_000).catch(() => {});
  });
  const h: Harness = {
    store,
    ctl,
    session: () => {
      if (!session) throw new Error("the session is not loaded yet");
      return session;
    },
    exits,
    state: () => store.get(),
    items: (kind) => store.get().items.filter((i) => i.kind === kind) as never,
    notices: (level) =>
      store
        .get()
        .items.filter((i): i is Extract<TranscriptItem, { kind: "notice" }> => i.kind === "notice" && (level === undefined || i.level === level))
        .map((i) => i.text),
    idle: () => until(() => !ctl.busy && store.get().run === null),
  };
  return h;
}

async function started(): Promise<Harness> {
  const h = harness();
  await h.ctl.start({});
  return h;
}

/** Sends a prompt and waits for the turn to end. */
async function turn(h: Harness, text: string): Promise<void> {
  expect(h.ctl.submit(text)).toBe(true);
  await h.idle();
}

/** The agent's replies and the evaluator's verdicts, each from its own queue (the last verdict repeats). */
function script(agent: ScriptedReply[], verdicts: ScriptedReply[] = []) {
  server.setScript((req) =>
    isEvaluator(req) ? (verdicts.length > 1 ? verdicts.shift()! : (verdicts[0] ?? { status: 400, error: "no verdict scripted" })) : (agent.shift() ?? { content: "(unscripted reply)" }),
  );
}

describe("ChatController start", () => {
  it("loads the session and dispatches ready with the model and approval mode", async () => {
    const h = harness();
    expect(h.state().ready).toBe(false);
    await h.ctl.start({});
    expect(h.state().ready).toBe(true);
    expect(h.state().status).toMatchObject({ model: "test-model", approvalMode: "ask" });
    expect(h.exits).toEqual([]);
    expect(h.ctl.busy).toBe(false);
  });

  it("text submitted before the runtime is ready is sent once it is", async () => {
    script([{ content: "Answer to the early bird." }]);
    const h = harness();
    expect(h.ctl.submit("early message")).toBe(true);
    expect(h.notices("info")).toEqual([expect.stringMatching(/^Starting up/)]);
    expect(server.requests).toHaveLength(0);
    await h.ctl.start({});
    await h.idle();
    expect(userTexts(server.requests[0]!)).toEqual(["early message"]);
    expect(h.items("user").map((i) => i.text)).toEqual(["early message"]);
    expect(h.items("assistant").map((i) => i.text)).toEqual(["Answer to the early bird."]);
    expect(h.state().status.threadId).toBe(h.ctl.threadId);
    expect(h.state().status.title).toBe("Test thread title");
  });

  it("a session that cannot load makes the app exit with that error", async () => {
    const boom = new Error("No model configured.");
    const h = harness({ loadSession: async () => Promise.reject(boom) });
    await h.ctl.start({});
    expect(h.exits).toEqual([boom]);
    expect(h.state().ready).toBe(false);
  });

  it("start with resume shows the saved conversation; an unknown id exits with the error", async () => {
    script([{ content: "Saved answer." }]);
    const first = await started();
    await turn(first, "saved question");
    const threadId = first.ctl.threadId!;

    const h = harness();
    await h.ctl.start({ resume: { threadId } });
    expect(h.notices("info")[0]).toMatch(new RegExp(`^Resumed thread ${threadId} · Test thread title \\(success, 2 entries\\)`));
    expect(h.items("user").map((i) => i.text)).toEqual(["saved question"]);
    expect(h.items("assistant").map((i) => i.text)).toEqual(["Saved answer."]);
    expect(h.state().status).toMatchObject({ threadId, title: "Test thread title" });
    expect(h.state().status.usage.total_tokens).toBeGreaterThan(0);

    const bad = harness();
    await bad.ctl.start({ resume: { threadId: "doesnotexist" } });
    expect(bad.exits).toHaveLength(1);
    expect((bad.exits[0] as Error).message).toMatch(/Thread doesnotexist not found/);
  });

  it("while a resumed thread loads, the screen names it and is not ready; what is typed meanwhile goes to that thread", async () => {
    script([{ content: "Saved answer." }, { content: "Answer in the resumed thread." }]);
    const first = await started();
    await turn(first, "saved question");
    const threadId = first.ctl.threadId!;

    // The thread's loading is held until the test lets it go (ordering by events, not by time).
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let loading = false;
    let session: ChatSession | undefined;
    const h = harness({
      // As `deerflow resume <id>` builds it (start.tsx): the thread is named from the first frame.
      store: new ChatStore({ resuming: { threadId }, threadId }),
      loadSession: async () => {
        const s = createChatSession({ home, model: "test-model", cwd });
        const resume = s.resume.bind(s);
        s.resume = async (sel) => {
          loading = true;
          await gate;
          return resume(sel);
        };
        session = s;
        return s;
      },
    });
    expect(loadingText(h.state().status.resuming)).toBe(`Loading thread ${threadId}…`);
    expect(h.state().status.threadId).toBe(threadId);
    const started2 = h.ctl.start({ resume: { threadId } });
    await until(() => loading, "the thread to start loading");
    expect(h.state().ready).toBe(false);
    expect(h.ctl.submit("typed while loading")).toBe(true);
    expect(h.notices("info").at(-1)).toBe(`Loading thread ${threadId}… your message goes to that thread once it is loaded.`);
    expect(server.requests).toHaveLength(1);
    release();
    await started2;
    await h.idle();
    expect(h.state().ready).toBe(true);
    expect(h.state().status.resuming).toBeUndefined();
    expect(h.ctl.threadId).toBe(threadId);
    expect(userTexts(server.requests[1]!)).toEqual(["saved question", "typed while loading"]);
    expect(h.items("user").map((i) => i.text)).toEqual(["saved question", "typed while loading"]);
    expect(await session!.listThreads()).toHaveLength(1);
  });

  it("a long thread resumes with its recent turns drawn from the start of a turn, and says how to see the rest", () => {
    const entries = Array.from(
      { length: 100 },
      (_, i): TranscriptEntry => (i % 2 === 0 ? { kind: "user", id: `u${i}`, text: `q${i / 2}` } : { kind: "assistant", id: `a${i}`, text: `a${(i - 1) / 2}` }),
    );
    const shown = recentTurns(entries);
    expect(shown.length).toBeLessThanOrEqual(RESUME_DRAWN_ENTRIES);
    expect(shown[0]).toMatchObject({ kind: "user" });
    expect(shown.at(-1)).toEqual(entries.at(-1));
    expect(recentTurns(entries.slice(0, 10))).toEqual(entries.slice(0, 10));
  });

  it("a thread of long answers draws its newest turns up to the text budget, whole turns, at least the last entry", () => {
    const answer = "x".repeat(2_048);
    const entries = Array.from({ length: 400 }, (_, i): TranscriptEntry => (i % 2 === 0 ? { kind: "user", id: `u${i}`, text: `turn ${i / 2}` } : { kind: "assistant", id: `a${i}`, text: answer }));
    const shown = recentTurns(entries);
    const chars = shown.reduce((n, e) => n + (e.kind === "user" || e.kind === "assistant" ? e.text.length : 0), 0);
    expect(chars).toBeLessThanOrEqual(RESUME_DRAWN_CHARS);
    // Not far below it either: the budget is what decides, not the entry count.
    expect(chars + 2 * (answer.length + 10)).toBeGreaterThan(RESUME_DRAWN_CHARS);
    expect(shown[0]).toMatchObject({ kind: "user" });
    expect(shown.at(-1)).toBe(entries.at(-1));
    // A short thread with the same answers is drawn whole.
    expect(recentTurns(entries.slice(0, 4))).toEqual(entries.slice(0, 4));
    // One answer larger than the whole budget is still drawn (with its question when that fits no more).
    const huge: TranscriptEntry[] = [...entries.slice(0, 10), { kind: "user", id: "u-last", text: "the big one" }, { kind: "assistant", id: "a-last", text: "y".repeat(RESUME_DRAWN_CHARS * 3) }];
    expect(recentTurns(huge).at(-1)).toBe(huge.at(-1));
    // Tool entries count their call and the head of their output, however long the output.
    const tools = Array.from({ length: 50 }, (_, i): TranscriptEntry => ({ kind: "tool", id: `t${i}`, name: "bash", args: { command: "cat big" }, status: "ok", output: "z".repeat(1_000_000) }));
    expect(recentTurns([{ kind: "user", id: "u", text: "go" }, ...tools]).length).toBeGreaterThan(1);
  });

  it("resuming the latest thread says so until it is loaded", () => {
    const store = new ChatStore({ resuming: {} });
    expect(loadingText(store.get().status.resuming)).toBe("Loading the latest thread…");
    expect(loadingText(undefined)).toBe("Starting…");
  });
});

describe("ChatController turns", () => {
  it("the status line's tokens are the thread's whole spending: the lead's, its subagents' and the title's", async () => {
    const child = (req: { body: { messages: { content: unknown }[] } }) => JSON.stringify(req.body.messages[0]?.content ?? "").includes("subagent of deerflow");
    const lead: ScriptedReply[] = [
      {
        toolCalls: ["one", "two"].map((w) => ({ id: w, name: "task", args: { description: `do ${w}`, prompt: `child ${w}`, subagent_type: "general-purpose" } })),
        usage: { prompt_tokens: 100, completion_tokens: 10 },
      },
      { content: "both done", usage: { prompt_tokens: 200, completion_tokens: 20 } },
    ];
    server.setScript((req) => (child(req) ? { content: "child done", usage: { prompt_tokens: 50, completion_tokens: 5 } } : lead.shift()!));
    server.titleReply = { content: "Two helpers", usage: { prompt_tokens: 7, completion_tokens: 3 } };
    const h = await started();
    await turn(h, "delegate twice");
    expect(h.items("assistant").map((i) => i.text)).toEqual(["both done"]);
    // Lead 330 + two children 2 × 55 + title 10.
    expect(h.state().status.usage).toMatchObject({ total_tokens: 450, by_source: { lead: { total_tokens: 330 }, subagents: { total_tokens: 110 }, title: { total_tokens: 10 } } });
  });

  it("a turn streams into the store and commits the answer", async () => {
    script([{ toolCalls: [{ id: "sh", name: "bash", args: { command: "echo from-tool" } }] }, { content: "The tool said from-tool." }]);
    const h = await started();
    await turn(h, "run a tool");
    expect(h.items("user").map((i) => i.text)).toEqual(["run a tool"]);
    expect(h.items("tool")).toMatchObject([{ tool: { id: "sh", name: "bash", status: "ok", output: expect.stringContaining("from-tool") } }]);
    expect(h.items("assistant").map((i) => i.text)).toEqual(["The tool said from-tool."]);
    expect(h.items("run-end")).toEqual([]);
    expect(h.state()).toMatchObject({ streaming: "", tools: [], run: null });
    expect(h.state().lastTool).toMatchObject({ id: "sh" });
  });

  it("messages typed while a request runs are queued (shown, sent in order when it ends, never refused); unqueueLast takes the newest back; a slash command that needs quiet is still refused; cancel ends the run with an Interrupted notice", async () => {
    script([{ hang: true }, { content: "Answered the first queued." }]);
    const h = await started();
    expect(h.ctl.submit("this will hang")).toBe(true);
    await until(() => server.requests.length === 1);
    expect(h.ctl.busy).toBe(true);

    expect(h.ctl.submit("first queued")).toBe(true);
    expect(h.ctl.submit("!echo shell-queued")).toBe(true);
    expect(h.ctl.submit("taken back")).toBe(true);
    expect(h.state().queued).toEqual(["first queued", "!echo shell-queued", "taken back"]);
    expect(h.state().hint).toBeUndefined();
    expect(h.ctl.unqueueLast()).toBe("taken back");
    expect(h.state().queued).toEqual(["first queued", "!echo shell-queued"]);
    expect(h.ctl.submit("/title Renamed while busy")).toBe(false);
    expect(h.notices("warning")).toEqual(["Wait for the running request (or press esc) before renaming the thread."]);
    expect(server.requests).toHaveLength(1);

    expect(h.ctl.cancel()).toBe(true);
    // The queue drains in order: the first message is the next turn, then the shell command runs.
    await until(() => h.items("shell").length === 1, "the queued shell command to run");
    await h.idle();
    expect(h.state().queued).toEqual([]);
    expect(h.notices("warning")).toContain("Interrupted. The thread is saved: type to continue it.");
    expect(h.items("user").map((i) => i.text)).toEqual(["this will hang", "first queued"]);
    expect(h.items("assistant").map((i) => i.text)).toEqual(["Answered the first queued."]);
    expect(userTexts(server.requests[1]!).at(-1)).toBe("first queued");
    expect(h.items("shell")[0]!.output).toContain("shell-queued");
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests)).not.toContain("taken back");
    const threadId = h.ctl.threadId!;
    expect(await h.session().listThreads()).toMatchObject([{ id: threadId }]);
    expect(h.ctl.cancel()).toBe(false);
  });

  it("exit() while running cancels first, then calls the exit callback", async () => {
    script([{ hang: true }]);
    const h = await started();
    h.ctl.submit("hang please");
    await until(() => server.requests.length === 1);
    await h.ctl.exit();
    expect(h.exits).toEqual([undefined]);
    expect(h.ctl.busy).toBe(false);
    expect(h.notices("warning").at(-1)).toMatch(/^Interrupted/);
    expect((await h.session().listThreads())[0]?.status).toBe("interrupted");
    // A second exit does nothing more.
    await h.ctl.exit();
    expect(h.exits).toHaveLength(1);
  });

  it("an approval is answered through the controller: deny leaves a notice and a denied tool card", async () => {
    script([{ toolCalls: [{ id: "rm", name: "bash", args: { command: "rm -r build" } }] }, { content: "Left it." }]);
    const h = await started();
    h.ctl.submit("delete build");
    await until(() => h.state().approvals.length === 1);
    const [req] = h.state().approvals;
    expect(req).toMatchObject({ command: "rm -r build", tool: "bash" });
    h.ctl.answerApproval(req!.id, "deny");
    expect(h.state().approvals).toEqual([]);
    await h.idle();
    expect(h.notices("warning")).toContain("Denied: rm -r build");
    expect(h.items("tool")).toMatchObject([{ tool: { id: "rm", status: "error", output: expect.stringMatching(/^Denied: .*the user denied it/) } }]);
    expect(h.items("assistant").map((i) => i.text)).toEqual(["Left it."]);
  });

  it("cycleApproval cycles ask → auto-edit → plan → yolo → ask in the status and in the session", async () => {
    const h = await started();
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      h.ctl.cycleApproval();
      seen.push(`${h.state().status.approvalMode}/${h.session().approval.mode}`);
    }
    expect(seen).toEqual(["auto-edit/auto-edit", "plan/plan", "yolo/yolo", "ask/ask"]);
  });

  it("without bubblewrap, cycleApproval skips yolo with one notice unless --dangerously-run-unconfined; a configured yolo stops the start", async () => {
    const saved = process.env.PATH;
    process.env.PATH = pathWithout(join(home, "..", "nobwrap-bin"), ["bwrap"]);
    try {
      const cycle = (h: Harness) =>
        [0, 1, 2].map(() => {
          h.ctl.cycleApproval();
          return `${h.state().status.approvalMode}/${h.session().approval.mode}`;
        });
      const h = await started();
      expect(cycle(h)).toEqual(["auto-edit/auto-edit", "plan/plan", "ask/ask"]);
      expect(h.notices("warning")).toEqual([
        "yolo needs bubblewrap here: without it commands would run on this host unasked. Install the `bubblewrap` package, or start deerflow with --dangerously-run-unconfined.",
      ]);
      let session: ChatSession | undefined;
      const allowed = harness({ loadSession: async () => (session = createChatSession({ home, model: "test-model", cwd, allowUnconfined: true })) });
      await allowed.ctl.start({});
      expect(
        [0, 1, 2].map(() => {
          allowed.ctl.cycleApproval();
          return session!.approval.mode;
        }),
      ).toEqual(["auto-edit", "plan", "yolo"]);
      expect(allowed.notices("warning")).toEqual([]);

      writeFileSync(join(cwd, ".deerflowrc"), JSON.stringify({ approval: "yolo" }));
      trustProject({ home, cwd }); // trusted, so the refusal is about bubblewrap, not about the folder
      const refused = harness();
      await refused.ctl.start({});
      expect(refused.exits.map((e) => (e as Error).message)).toEqual([expect.stringMatching(/with approval mode yolo the agent's shell commands would run on this host unasked/)]);
    } finally {
      process.env.PATH = saved;
    }
  });
});

describe("ChatController slash commands", () => {
  it("/help lists the commands and the keys", async () => {
    const h = await started();
    expect(h.ctl.submit("/help")).toBe(true);
    const [help] = h.items("help");
    expect(help).toBeDefined();
    expect(help!.commands.map((c) => c.keys)).toEqual(expect.arrayContaining(["/goal [text|clear]", "/resume <id>", "!<command>"]));
    expect(help!.keys.map((k) => k.keys)).toContain("ctrl+t");
    expect(h.ctl.busy).toBe(false);
  });

  it("/todos without todos is a notice; with todos it shows them, and the agent's notes with them", async () => {
    const h = await started();
    h.ctl.submit("/todos");
    expect(h.notices("info").at(-1)).toMatch(/^No todos or notes yet/);
    expect(h.items("todos")).toEqual([]);
    h.store.dispatch({ type: "notes.updated", run_id: "r", notes: "the parser fails on CRLF" });
    h.ctl.submit("/todos");
    expect(h.items("todos")).toMatchObject([{ todos: [], notes: "the parser fails on CRLF" }]);
    h.store.dispatch({ type: "todos.updated", run_id: "r", todos: [{ content: "write tests", status: "in_progress" }] });
    h.ctl.submit("/todos");
    expect(h.items("todos").at(-1)).toMatchObject({ todos: [{ content: "write tests", status: "in_progress" }], notes: "the parser fails on CRLF" });
  });

  it("/threads lists the saved threads with the current one", async () => {
    script([{ content: "one" }]);
    const h = await started();
    // The list is read from the store (a team database answers later): it arrives as an event.
    h.ctl.submit("/threads");
    await until(() => h.items("threads").length === 1);
    expect(h.items("threads")).toMatchObject([{ threads: [] }]);
    await turn(h, "hello");
    h.ctl.submit("/threads");
    await until(() => h.items("threads").length === 2);
    const lists = h.items("threads");
    expect(lists).toHaveLength(2);
    expect(lists[1]).toMatchObject({ current: h.ctl.threadId, threads: [{ id: h.ctl.threadId, title: "Test thread title", status: "success" }] });
  });

  it("/model opens a picker over what the endpoint's /v1/models lists (the model in use marked); a pick switches to it, esc keeps the model", async () => {
    server.modelIds = ["test-model", "big-model", "small-model"];
    const h = await started();
    h.ctl.submit("/model");
    await until(() => h.state().modelPicker !== null, "the picker");
    expect(h.state().modelPickerSwitch).toBe(true);
    expect(h.state().modelPicker).toEqual([
      { server: "endpoint", baseUrl: server.url, model: "test-model", current: true },
      { server: "endpoint", baseUrl: server.url, model: "big-model" },
      { server: "endpoint", baseUrl: server.url, model: "small-model" },
    ]);
    await h.ctl.pickModel(undefined);
    expect(h.state().modelPicker).toBeNull();
    expect(h.notices("info").at(-1)).toBe("Model unchanged: test-model");

    h.ctl.submit("/model");
    await until(() => h.state().modelPicker !== null, "the picker again");
    await h.ctl.pickModel(2);
    expect(h.state().modelPicker).toBeNull();
    expect(h.state().status.model).toBe("small-model");
    expect(h.notices("info").at(-1)).toBe(`Model: small-model (not in .deerflowrc "models": used as a model id at ${server.url})`);
    script([{ content: "from the small model" }]);
    await turn(h, "hi");
    expect(server.requests[0]!.body.model).toBe("small-model");
  });

  it("/model <name> switches between configured models; an unusable one is an error notice", async () => {
    // Models configured only in .deerflowrc (no OPENAI_* in the environment).
    delete process.env.OPENAI_BASE_URL;
    delete process.env.OPENAI_API_KEY;
    writeFileSync(
      join(cwd, ".deerflowrc"),
      JSON.stringify({
        models: {
          "test-model": { model: "test-model", baseUrl: server.url, apiKey: "k1" },
          other: { model: "other-model", baseUrl: server.url, apiKey: "k2" },
        },
      }),
    );
    trustProject({ home, cwd });
    const h = await started();
    h.ctl.submit("/model");
    await until(() => h.state().modelPicker !== null, "the picker");
    // The configured names first; the endpoint's list adds nothing they name.
    expect(h.state().modelPicker).toEqual([
      { server: "in .deerflowrc", baseUrl: "", model: "test-model", current: true },
      { server: "in .deerflowrc", baseUrl: "", model: "other" },
    ]);
    await h.ctl.pickModel(undefined);

    h.ctl.submit("/model other");
    expect(h.state().status.model).toBe("other");
    expect(h.notices("info").at(-1)).toBe("Model: other");
    script([{ content: "from the other model" }]);
    await turn(h, "hi");
    expect(server.requests[0]!.body.model).toBe("other-model");

    h.ctl.submit("/model nosuchmodel");
    expect(h.notices("error").at(-1)).toMatch(/^No API key for model "nosuchmodel"/);
    expect(h.state().status.model).toBe("other");
    expect(h.session().model.name).toBe("other");
  });

  it("/title renames the thread in the status line", async () => {
    const h = await started();
    h.ctl.submit("/title");
    expect(h.notices("info").at(-1)).toBe("Usage: /title <text>");
    h.ctl.submit("/title  Refactor the parser ");
    await h.idle();
    expect(h.state().status).toMatchObject({ title: "Refactor the parser", threadId: h.ctl.threadId });
    expect(h.ctl.threadId).toBeDefined();
    expect(h.notices("info").at(-1)).toBe("Title: Refactor the parser");
    expect((await h.session().threadRow())?.title).toBe("Refactor the parser");
    // A turn afterwards keeps it.
    script([{ content: "ok" }]);
    await turn(h, "hello");
    expect(h.state().status.title).toBe("Refactor the parser");
  });

  it("/clear starts a new thread: the status loses the thread id, the next turn makes another thread", async () => {
    script([{ content: "first" }, { content: "second" }]);
    const h = await started();
    await turn(h, "one");
    const first = h.ctl.threadId!;
    expect(h.state().status.threadId).toBe(first);
    const itemsBefore = h.state().items.length;

    h.ctl.submit("/clear");
    expect(h.ctl.threadId).toBeUndefined();
    expect(h.state().status.threadId).toBeUndefined();
    expect(h.state().status.title).toBeUndefined();
    expect(h.notices("info").at(-1)).toMatch(/^New thread/);
    expect(h.state().items.length).toBe(itemsBefore + 1);

    await turn(h, "two");
    expect(h.ctl.threadId).toBeDefined();
    expect(h.ctl.threadId).not.toBe(first);
    expect(userTexts(server.requests[1]!)).toEqual(["two"]);
    expect(await h.session().listThreads()).toHaveLength(2);
  });

  it("/resume <id> switches back to an earlier thread and shows its conversation", async () => {
    script([{ content: "Answer in A." }, { content: "Answer in B." }, { content: "Back in A." }]);
    const h = await started();
    await turn(h, "question in A");
    const a = h.ctl.threadId!;
    h.ctl.submit("/clear");
    await turn(h, "question in B");
    expect(h.ctl.threadId).not.toBe(a);

    h.ctl.submit("/resume");
    expect(h.notices("info").at(-1)).toMatch(/^Usage: \/resume/);
    const before = h.state().items.length;
    h.ctl.submit(`/resume ${a}`);
    await h.idle();
    const shown = h.state().items.slice(before);
    expect(shown).toMatchObject([
      { kind: "notice", text: expect.stringMatching(new RegExp(`^Resumed thread ${a}`)) },
      { kind: "user", text: "question in A" },
      { kind: "assistant", text: "Answer in A." },
      // Its own fresh folder is not the directory the chat started in: one line says where it works.
      { kind: "notice", text: expect.stringMatching(new RegExp(`^Thread ${a} works in .*${a}/workspace \\(its own workspace\\)`)) },
    ]);
    expect(h.state().status.threadId).toBe(a);
    expect(h.ctl.threadId).toBe(a);

    await turn(h, "again in A");
    expect(userTexts(server.requests[2]!)).toEqual(["question in A", "again in A"]);

    h.ctl.submit("/resume nosuchthread");
    await h.idle();
    expect(h.notices("error").at(-1)).toMatch(/Thread nosuchthread not found/);
    expect(h.ctl.threadId).toBe(a);
  });

  it("an unknown command is a warning, and nothing is sent", async () => {
    const h = await started();
    expect(h.ctl.submit("/foo bar")).toBe(true);
    expect(h.notices("warning")).toEqual(["Unknown command /foo. Type /help for the list (and /skills for the skills)."]);
    expect(h.ctl.busy).toBe(false);
    expect(server.requests).toHaveLength(0);
  });

  it("/quit leaves", async () => {
    const h = await started();
    h.ctl.submit("/QUIT");
    await until(() => h.exits.length === 1);
    expect(h.exits).toEqual([undefined]);
  });

  it("/goal runs a goal turn: the status shows it achieved; /goal without text shows it", async () => {
    script([{ content: "Done; the output shows it." }], [{ content: JSON.stringify({ satisfied: true, blocker: "none", reason: "shown", evidence_summary: "", relied_on_assumption: false }) }]);
    const h = await started();
    h.ctl.submit("/goal");
    expect(h.notices("info").at(-1)).toMatch(/^No goal/);
    h.ctl.submit("/goal the output shows it");
    expect(h.state().status.goal).toMatchObject({ objective: "the output shows it", status: "active" });
    await h.idle();
    expect(h.items("user").map((i) => i.text)).toEqual(["/goal the output shows it"]);
    expect(h.notices("info")).toContain("Goal check: met — shown");
    expect(h.state().status.goal).toMatchObject({ objective: "the output shows it", status: "achieved" });
    h.ctl.submit("/goal");
    expect(h.notices("info").at(-1)).toBe("Goal (achieved): the output shows it");
  });
});

describe("ChatController !cmd", () => {
  it("`!echo hi` adds a shell item with the output, in the thread's workspace", async () => {
    const h = await started();
    expect(h.ctl.submit("!echo hi")).toBe(true);
    await h.idle();
    const [shell] = h.items("shell");
    expect(shell).toMatchObject({ command: "echo hi", output: "hi", exitCode: 0 });
    expect(h.ctl.threadId).toBeDefined();
    expect(h.state().status.threadId).toBe(h.ctl.threadId);
    expect(shell!.cwd).toBe((await h.session().listThreads())[0]!.workspace);

    h.ctl.submit("!");
    expect(h.notices("info").at(-1)).toMatch(/^Type a command after !/);
  });

  it("a running `!sleep` is cancelled with esc", async () => {
    const h = await started();
    h.ctl.submit("!sleep 30");
    await until(() => h.ctl.busy);
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    h.ctl.cancel();
    await h.idle();
    expect(Date.now() - t0).toBeLessThan(20_000); // well short of the 30 s sleep, generous under load
    expect(h.items("shell")).toMatchObject([{ command: "sleep 30", stoppedBy: "abort" }]);
  });
});
