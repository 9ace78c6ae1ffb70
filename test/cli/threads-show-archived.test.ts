// `deerflow threads show` of a compacted thread (issue 27, part 7): the messages compaction archived are printed in
// their place, after the first user message, between two marks and each marked archived, and `--json` lists them.
// The thread is made in-process (ChatSession, what the TUI's /compact calls); the printing is the built CLI's.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { beforeEach, describe, expect, it } from "vitest";
import { createChatSession } from "../../src/runtime/chat-session.js";
import { ThreadRuntime } from "../../src/runtime/thread-runtime.js";
import { BIN, SUITE_CODE_CACHE } from "../support/cli.js";
import { useInProcessModel } from "../support/in-process.js";
import type { TestModelServer } from "../support/openai-server.js";
import { isSummaryRequest } from "../support/requests.js";

const env = useInProcessModel("deerflow-threads-archived-");
let server: TestModelServer;
let home: string;
let cwd: string;
beforeEach(() => ({ server, home, cwd } = env()));

const show = (threadId: string, ...flags: string[]) =>
  execa(process.execPath, [BIN, "threads", "show", ...flags, threadId], {
    cwd,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, DEERFLOW_HOME: home, NO_COLOR: "1", DEERFLOW_DISCOVER_PORTS: "none", DEERFLOW_CACHE_DIR: SUITE_CODE_CACHE },
    reject: false,
  });

describe.each(["full", "delta"] as const)("threads show of a compacted thread (%s checkpoints)", (mode) => {
  it("prints the archived turns in their place, marked archived (text and --json)", async () => {
    process.env.DEERFLOW_CHECKPOINT_MODE = mode;
    // Keep little on /compact, so the middle turns are archived.
    writeFileSync(join(process.env.HOME!, ".deerflowrc"), JSON.stringify({ compaction: { keepRecentTokens: 256 } }));
    let n = 0;
    server.setScript((req) => (isSummaryRequest(req) ? { content: "Summary: counted to five." } : { content: `answer ${++n} ${"z".repeat(400)}` }));
    const s = createChatSession({ home, model: "test-model", cwd });
    for (let i = 1; i <= 5; i++) await s.send({ prompt: `question ${i}` }, () => {}, new AbortController().signal);
    const info = await s.compact();
    expect(info).not.toBeNull();
    const threadId = s.threadId!;
    await ThreadRuntime.closeAll();

    const r = await show(threadId);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    const first = lines.indexOf("> question 1");
    expect(first).toBeGreaterThan(0);
    expect(lines[first + 1]).toMatch(/^── \d+ archived messages \(#1–#\d+, taken out of the conversation by compaction; the model reads them with read_history\) ──$/);
    const end = lines.indexOf("── end of the archived messages ──");
    const block = lines.slice(first + 2, end);
    expect(block[0]).toMatch(/^\[archived #1\] answer 1 z+$/);
    expect(block).toContain("[archived #2] > question 2");
    expect(block.every((l) => l.startsWith("[archived #"))).toBe(true);
    // Every turn appears once: archived or live, in order.
    const order = lines
      .filter((l) => /(?:> question|answer) \d/.test(l))
      .map((l) =>
        l
          .match(/(question|answer) (\d)/)!
          .slice(1)
          .join(" "),
      );
    expect(order).toEqual(["question 1", "answer 1", "question 2", "answer 2", "question 3", "answer 3", "question 4", "answer 4", "question 5", "answer 5"]);
    expect(lines.slice(end + 1).some((l) => l === "> question 5")).toBe(true);

    const json = JSON.parse((await show(threadId, "--json")).stdout);
    expect(json.archived.length).toBe(info!.archived_to);
    expect(json.archived[1]).toMatchObject({ seq: 2, role: "user", text: "question 2" });
  }, 180_000);
});
