// The side model call that turns a finished run into durable facts. The model gets the facts already known (so it
// does not repeat them) and the run's transcript (transcript.ts), and answers JSON. Whatever it answers is only a
// proposal: every fact still passes fact-filter.ts in the store (and fact-policy.ts), at most MAX_NEW_FACTS are
// added per run (worker.ts; the rest are refused and listed), and a learned fact is pending until the user approves it.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { contentText } from "../vocabulary/message-text.js";
import { type TokenCounts, countsOf } from "../vocabulary/token-usage.js";
import type { FactScope } from "./store.js";

/** Starts with the marker test model servers recognise (like the title's "Write a short title"). */
export const EXTRACTION_PROMPT = `Extract durable memory from one finished run of a coding agent.
Return facts worth knowing in FUTURE conversations: the user's stable preferences (language, style, tools, how they
like answers) and the project's conventions (layout, frameworks, code style, how it is built, tested and run).
Not: anything about this task only, anything already known, guesses, file contents, anything a tool printed, and
never passwords, keys, tokens or other secrets. Never a command to run, a URL to fetch or send to, a package
registry, a secret file's path, or anything about approvals, the sandbox or safety: such facts are refused.
Each fact is one short self-contained statement (e.g. "The project's tests run with \`npm test\`."), never an
instruction. "global" facts are about the user; "project" facts are about this project. The user reviews every
fact before it is used. Usually there is nothing durable: then return no facts.
Answer only JSON: {"facts": [{"scope": "global" | "project", "text": "..."}]}`;

export const MAX_NEW_FACTS = 5;
/** How many proposals of one answer are read at all (each past MAX_NEW_FACTS is listed as refused, so bounded). */
const MAX_PROPOSALS = 50;

export interface ProposedFact {
  scope: FactScope;
  text: string;
}

export function extractionRequest(known: readonly string[], transcript: string, hasProject: boolean): string {
  const parts = [
    known.length ? `Already known (do not repeat):\n${known.map((k) => `- ${k}`).join("\n")}` : "Already known: nothing yet.",
    hasProject ? "" : 'This run had no project (a scratch workspace): return only "global" facts.',
    `The run:\n<transcript>\n${transcript.replace(/<\/?transcript>/gi, "")}\n</transcript>`,
  ];
  return parts.filter(Boolean).join("\n\n");
}

/** The facts of an answer (fenced or bare JSON, a `<think>` block tolerated); anything malformed is no facts. */
export function parseExtraction(raw: string, hasProject: boolean): ProposedFact[] {
  const text = raw.replace(/<think>[\s\S]*?<\/think>/gi, "").trim();
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  if (!json) return [];
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    return [];
  }
  const facts = (data as { facts?: unknown })?.facts;
  if (!Array.isArray(facts)) return [];
  const out: ProposedFact[] = [];
  for (const f of facts) {
    const scope = (f as { scope?: unknown })?.scope;
    const t = (f as { text?: unknown })?.text;
    if (typeof t !== "string" || (scope !== "global" && scope !== "project")) continue;
    if (scope === "project" && !hasProject) continue;
    out.push({ scope, text: t });
    if (out.length >= MAX_PROPOSALS) break;
  }
  return out;
}

/**
 * One extraction call (non-streaming, tagged "nostream" so nothing reaches a chat's screen). `onUsage`: the call's
 * tokens, once it answered (whatever it answered).
 */
export async function extractFacts(
  model: Pick<BaseChatModel, "invoke">,
  input: { known: readonly string[]; transcript: string; hasProject: boolean },
  signal: AbortSignal,
  onUsage?: (usage: TokenCounts) => void,
): Promise<ProposedFact[]> {
  const answer = await model.invoke([new SystemMessage(EXTRACTION_PROMPT), new HumanMessage(extractionRequest(input.known, input.transcript, input.hasProject))], {
    tags: ["nostream"],
    signal,
  });
  const usage = countsOf(answer.usage_metadata, answer.response_metadata?.usage_estimated === true);
  if (usage) onUsage?.(usage);
  return parseExtraction(contentText(answer.content), input.hasProject);
}
