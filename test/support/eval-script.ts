// The scripted model of the eval tests: each task's scripted.json holds a correct and a wrong solution, as the
// replies a model would send. One test server plays the solutions of many tasks at once (attempts run in parallel),
// routing each request by what it carries: the task's prompt (the lead agent), a subagent's brief, or the summary
// prompt of compaction. Replay of a recorded run (eval --record) is here too.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RecordedExchange } from "../../src/eval/recorder.js";
import type { EvalTask } from "../../src/eval/task.js";
import type { RecordedRequest, Script, ScriptedReply } from "./openai-server.js";

type Replies = ScriptedReply[];
/** A plain list: the lead's replies. With `sub`: the replies of each subagent, keyed by text of its brief. */
export type Solution = Replies | { lead: Replies; sub: Record<string, Replies> };

export function solutionOf(task: Pick<EvalTask, "dir">, which: "correct" | "wrong"): Solution {
  return (JSON.parse(readFileSync(join(task.dir, "scripted.json"), "utf8")) as Record<string, Solution>)[which]!;
}

const text = (content: unknown): string => (typeof content === "string" ? content : Array.isArray(content) ? content.map((b: { text?: string }) => b?.text ?? "").join("") : "");
const systemOf = (req: RecordedRequest) => text(req.body?.messages?.[0]?.role === "system" ? req.body.messages[0].content : "");
const usersOf = (req: RecordedRequest): string[] => (req.body?.messages ?? []).filter((m: { role: string }) => m.role === "user").map((m: { content: unknown }) => text(m.content));

/** The summary compaction asks for (its system prompt: middleware/summarization.ts SUMMARY_PROMPT). */
const SUMMARY: ScriptedReply = { content: "Summary: the user asked for a file-by-file total; the files read so far and their numbers are in the notes and the archived messages." };

/**
 * One script for several tasks: a request goes to the task whose prompt one of its user messages contains; a
 * subagent's request (its system prompt says "subagent of deerflow") to the sub-queue whose key its brief contains.
 * A queue that runs dry answers with a final text, so an under-scripted attempt ends instead of retrying.
 */
export function playSolutions(entries: { task: Pick<EvalTask, "prompt">; solution: Solution }[]): Script {
  const players = entries.map(({ task, solution }) => ({
    prompt: task.prompt,
    lead: [...(Array.isArray(solution) ? solution : solution.lead)],
    sub: Object.entries(Array.isArray(solution) ? {} : solution.sub).map(([key, replies]) => ({ key, replies: [...replies] })),
  }));
  // Tool call ids of each attempt's own (the server's counter is shared): parallel attempts stay reproducible.
  const seq = new Map<string, number>();
  const nextId = (owner: string) => {
    seq.set(owner, (seq.get(owner) ?? 0) + 1);
    return `call_${owner}_${seq.get(owner)}`;
  };
  const withIds = (reply: ScriptedReply | undefined, owner: string): ScriptedReply | undefined =>
    reply && "toolCalls" in reply && reply.toolCalls ? { ...reply, toolCalls: reply.toolCalls.map((c) => ({ id: nextId(owner), ...c })) } : reply;
  return (req) => {
    const system = systemOf(req);
    if (system.startsWith("Summarize this conversation")) return SUMMARY;
    const users = usersOf(req);
    if (system.includes("subagent of deerflow")) {
      for (const [i, p] of players.entries())
        for (const s of p.sub) if (users.some((u) => u.includes(s.key))) return withIds(s.replies.shift(), `${i}${s.key.replace(/\W+/g, "")}`) ?? { content: "(subagent script exhausted)" };
      return { content: "(no subagent script for this brief)" };
    }
    const i = players.findIndex((p) => users.some((u) => u.includes(p.prompt)));
    if (i < 0) return { content: "(no script for this request)" };
    return withIds(players[i]!.lead.shift(), String(i)) ?? { content: "(script exhausted)" };
  };
}

/** A recorded attempt (`deerflow eval --record`) as test-server replies: every exchange byte for byte, in order. */
export function replayRecording(file: string): { task: string; replies: ScriptedReply[] } {
  const rec = JSON.parse(readFileSync(file, "utf8")) as { task: string; exchanges: RecordedExchange[] };
  const isTitle = (e: RecordedExchange) => text((e.request as { messages?: { content: unknown }[] })?.messages?.[0]?.content).startsWith("Write a short title");
  const replies = rec.exchanges
    .filter((e) => e.path === "/chat/completions" && !isTitle(e)) // the test server answers title requests itself
    .map((e) => ({ raw: [e.response], status: e.status, headers: { "content-type": e.contentType } }));
  return { task: rec.task, replies };
}
