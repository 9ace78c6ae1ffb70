// Export in-process (the threads are made by ChatSession, what the TUI drives): a compacted thread's JSON export
// round-trips through the documented shape (every key it emits has a row in docs/export.md, archived turns are there
// in their place), and a hostile thread — a tool call's arguments and a file's content carrying escape sequences and
// a key — exports masked, with no raw control sequence in either format.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeEach, describe, expect, it } from "vitest";
import { createChatSession } from "../../src/runtime/chat-session.js";
import { loadConfig } from "../../src/config/load.js";
import { buildThreadExport, EXPORT_TEXT_MAX_CHARS } from "../../src/runtime/thread-export.js";
import { exportJson, exportMarkdown } from "../../src/runtime/thread-export-format.js";
import { ThreadRuntime } from "../../src/runtime/thread-runtime.js";
import { ShadowRepo } from "../../src/snapshots/shadow-repo.js";
import { useInProcessModel } from "../support/in-process.js";
import type { TestModelServer } from "../support/openai-server.js";
import { isSummaryRequest } from "../support/requests.js";

const env = useInProcessModel("deerflow-export-", () => ThreadRuntime.closeAll());
let server: TestModelServer;
let home: string;
let cwd: string;
beforeEach(() => ({ server, home, cwd } = env()));

const DOC = readFileSync(fileURLToPath(new URL("../../docs/export.md", import.meta.url)), "utf8");
const documented = new Set([...DOC.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!));

/** Every key path of `value` (`messages[].tool_calls[].name`); free-form values (a call's args, by_source) are leaves. */
function keyPaths(value: unknown, path = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => keyPaths(v, `${path}[]`));
  if (!value || typeof value !== "object" || /(\.args|\.by_source|\.verdict|\.binary)$/.test(path)) return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const p = path ? `${path}.${k}` : k;
    return [p, ...keyPaths(v, p)];
  });
}

const signal = () => new AbortController().signal;

describe.each(["full", "delta"] as const)("a compacted thread's export (%s checkpoints)", (mode) => {
  it("round-trips through the documented JSON shape, archived turns in their place", async () => {
    process.env.DEERFLOW_CHECKPOINT_MODE = mode;
    writeFileSync(join(process.env.HOME!, ".deerflowrc"), JSON.stringify({ compaction: { keepRecentTokens: 256 } }));
    let n = 0;
    server.setScript((req) => (isSummaryRequest(req) ? { content: "Summary: counted to four." } : { content: `answer ${++n} ${"z".repeat(400)}` }));
    const s = createChatSession({ home, model: "test-model", cwd });
    for (let i = 1; i <= 4; i++) await s.send({ prompt: `question ${i}` }, () => {}, signal());
    const info = await s.compact();
    expect(info).not.toBeNull();

    const doc = JSON.parse(exportJson(await buildThreadExport(s.config, s.threadId!)));
    expect(doc.version).toBe(1);
    expect(doc.limits.text_max_chars).toBe(EXPORT_TEXT_MAX_CHARS);
    const undocumented = [...new Set(keyPaths(doc))].filter((p) => !documented.has(p));
    expect(undocumented, "keys the export emits that docs/export.md has no row for").toEqual([]);
    // Every turn once, in order; the older ones archived (numbered), the recent ones live.
    const turns = doc.messages.map((m: any) => `${m.archived ? "A" : "L"} ${m.role} ${m.text.split(" ").slice(0, 2).join(" ")}`);
    expect(turns.filter((t: string) => /question|answer/.test(t)).map((t: string) => t.slice(2))).toEqual([
      "user question 1",
      "assistant answer 1",
      "user question 2",
      "assistant answer 2",
      "user question 3",
      "assistant answer 3",
      "user question 4",
      "assistant answer 4",
    ]);
    expect(turns[0]).toBe("L user question 1");
    expect(turns[1]).toBe("A assistant answer 1");
    expect(doc.messages.filter((m: any) => m.archived).map((m: any) => m.seq)).toEqual(Array.from({ length: info!.archived_to }, (_, i) => i + 1));
    expect(turns.at(-1)).toBe("L assistant answer 4");
    expect(doc.runs).toHaveLength(4);
    expect(doc.usage.total_tokens).toBeGreaterThan(0);
    // The Markdown says the same, archived turns marked.
    const md = exportMarkdown(doc);
    expect(md).toMatch(/### deerflow \(archived #1\)\n\nanswer 1 z+/);
    expect(md).toContain("## Runs");
  }, 180_000);
});

describe("a hostile thread's export", () => {
  it("masks keys and credentials, and carries no raw control sequence in Markdown or JSON", async () => {
    const key = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX";
    const hostile = `title \u001b]0;pwned\u0007 bidi \u202etxt.sh clear \u001b[2J c1 \u009b31m clip \u001b]52;c;ZXZpbA==\u0007 ${key} own sk-test-key-123456`;
    writeFileSync(join(cwd, "hostile.txt"), `${hostile}\n`);
    server.push(
      { toolCalls: [{ name: "read_file", args: { path: "hostile.txt" } }] },
      { toolCalls: [{ name: "write_file", args: { path: "notes.txt", content: `${hostile}\n${"y".repeat(EXPORT_TEXT_MAX_CHARS + 500)}` } }] },
      { content: "done" },
    );
    const s = createChatSession({ home, model: "test-model", cwd, workspace: cwd, approval: "auto-edit" });
    await s.send({ prompt: "read it and note it" }, () => {}, signal());
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toContain(key);

    const doc = await buildThreadExport(loadConfig({ cwd, flags: { home, model: "test-model" } }), s.threadId!);
    const json = exportJson(doc);
    const md = exportMarkdown(doc);
    for (const out of [json, md]) {
      expect(out).not.toContain("ABCDEFGHIJKLMNOP");
      expect(out).not.toContain("sk-test-key-123456");
      expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    }
    const call = doc.messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.name === "write_file")!;
    const content = (call.args as { content: string }).content;
    expect(content).toContain("***");
    expect(content).toMatch(/y… \[\d+ more characters not exported\]$/);
    const written = doc.messages.find((m) => m.role === "tool" && m.diff)!;
    expect(written.diff!.path).toContain("notes.txt");
    expect(written.diff!.patch).not.toContain("ABCDEFGHIJKLMNOP");
    // The text around the sequences is still there: Markdown drops the sequences, JSON escapes them.
    expect(md).toMatch(/title +bidi txt\.sh clear +c1 +clip +\*\*\* own \*\*\*/);
    expect(json).toContain("bidi \\u202etxt.sh");
    expect(json).not.toContain("\u202e");
    expect(json).toContain("\\u001b]52;c;ZXZpbA==");
    expect(json).toContain("\\u009b31m");
    expect(md).toMatch(/#### Tool call: read_file/);
    expect(md).toMatch(/Diff of \S*notes\.txt \(\+\d+ −0\):/);
  }, 120_000);
});

describe("a token in the first prompt", () => {
  it("is masked in the title and the run's input line the thread stores, lists and exports (the title's clean-up drops `_`), and left out of the rewind snapshot", async () => {
    const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    // "`" normalises to an empty title: the fallback (the prompt's first words) is used; then a model title with a key.
    server.titleReply = { content: "`" };
    server.push({ content: "ok" });
    const s = createChatSession({ home, model: "test-model", cwd });
    await s.send({ prompt: `${token} is my token, push the branch with it` }, () => {}, signal());
    const config = loadConfig({ cwd, flags: { home, model: "test-model" } });
    const doc = await buildThreadExport(config, s.threadId!);
    const body = "abcdefghijklmnopqrstuvwxyz";
    for (const out of [exportJson(doc), exportMarkdown(doc)]) expect(out).not.toContain(body);
    expect(doc.thread.title).toBe("is my token, push the branch");
    const rt = ThreadRuntime.for(config);
    const row = await rt.store.threads.get(s.threadId!);
    expect(row?.title).not.toContain(body);
    expect((await rt.store.runs.forThread(s.threadId!)).map((r) => r.input)).toEqual(["*** is my token, push the branch with it"]);
    // The rewind snapshot's commit names the run, not the prompt (and git got its message on stdin, not in argv).
    const messages = execFileSync("git", ["--git-dir", ShadowRepo.dirFor(home, s.threadId!), "log", "--all", "--format=%B"], { encoding: "utf8" });
    expect(messages).toMatch(/^before run-/);
    expect(messages).not.toContain("my token");

    server.titleReply = { content: "Fix ghp_abcdefghijklmnopqrstuvwxyz0123456789 push" };
    server.push({ content: "ok" });
    const t = createChatSession({ home, model: "test-model", cwd });
    await t.send({ prompt: "push it" }, () => {}, signal());
    expect((await buildThreadExport(config, t.threadId!)).thread.title).toBe("Fix push");
  }, 120_000);
});
