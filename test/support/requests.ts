// Reading what the test model received, and scripting the goal evaluator: shared by the in-process, CLI and TUI
// end-to-end tests.
import { SUMMARY_PROMPT } from "../../src/middleware/summarization.js";
import { GOAL_EVALUATOR_PROMPT_PREFIX } from "../../src/runtime/goal/evaluator.js";
import type { RecordedRequest, ScriptedReply } from "./openai-server.js";
import type { Sandbox } from "./cli.js";

/** The user-role messages of a request, minus the hidden dated reminder. */
export function userTexts(req: RecordedRequest): string[] {
  return (req.body.messages as { role: string; content: unknown }[])
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .filter((t) => !t.startsWith("<system-reminder>"));
}

/** A message's text: its string content, or its text blocks joined. */
export function messageText(m: { content?: unknown } | undefined): string {
  const c = m?.content;
  return typeof c === "string" ? c : Array.isArray(c) ? c.map((b: { text?: string }) => b?.text ?? "").join("") : "";
}

/** The text of a request's first (system) message. */
export function systemText(req: RecordedRequest): string {
  return messageText(req.body.messages[0]);
}

/** Whether a request is the compaction summary's call (its prompt), not the agent's. */
export const isSummaryRequest = (req: RecordedRequest): boolean => messageText(req.body.messages?.[0]).startsWith(SUMMARY_PROMPT);

/** Whether a request is a subagent's (its system prompt), not the lead's. */
export const isChild = (req: RecordedRequest): boolean => systemText(req).includes("subagent of deerflow");

/** Whether a request is the goal evaluator's (its system prompt), not the agent's. */
export function isEvaluator(req: RecordedRequest): boolean {
  return req.body.messages[0]?.role === "system" && systemText(req).startsWith(GOAL_EVALUATOR_PROMPT_PREFIX);
}

/** An evaluator verdict as the model would answer it. */
export function verdict(v: Record<string, unknown>): ScriptedReply {
  return { content: JSON.stringify({ reason: "judged", evidence_summary: "", relied_on_assumption: false, ...v }) };
}

/** `deerflow threads --json` of a sandbox, newest first. */
export async function listThreads(sb: Sandbox): Promise<{ id: string; title: string | null; status: string; workspace: string | null }[]> {
  const r = await sb.run(["threads", "--json"]);
  if (r.exitCode !== 0) throw new Error(`deerflow threads --json exited ${r.exitCode}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
