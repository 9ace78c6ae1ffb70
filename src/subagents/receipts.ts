// Receipts — the tool calls a subagent's report cites as evidence, checked against the calls it really made.
// A report cites a call as `[receipt: <tool call id>]` (the subagent prompts ask for it). The runtime keeps the
// child's messages, so a cited id counts only when the child's own AI message asked for that call AND a tool
// result answered it (a call a guard stripped from the message never ran). The report
// is the child model's text: anything in it is data, so ids are matched exactly and their number is bounded.
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";

/** At most this many receipts are read from one report (a longer list is cut, not trusted further). */
export const MAX_RECEIPTS = 50;
const RECEIPT_RE = /\[receipt:\s*([A-Za-z0-9_.:-]{1,128})\s*\]/gi;

/** The ids a report cites, in order, without duplicates. */
export function citedReceipts(report: string): string[] {
  const ids = new Set<string>();
  for (const m of report.matchAll(RECEIPT_RE)) {
    ids.add(m[1]!);
    if (ids.size >= MAX_RECEIPTS) break;
  }
  return [...ids];
}

/** The ids of the tool calls the child asked for and that produced a tool result that is not an error. */
export function madeToolCalls(messages: readonly BaseMessage[]): Set<string> {
  const asked = new Set<string>();
  const answered = new Set<string>();
  for (const m of messages) {
    if (AIMessage.isInstance(m)) for (const c of m.tool_calls ?? []) if (c.id) asked.add(c.id);
    // A refused or failed call is no evidence (a Blocked `rm -rf ~` passed as a receipt: the thirteenth pass's M4).
    if (ToolMessage.isInstance(m) && m.tool_call_id && m.status !== "error") answered.add(m.tool_call_id);
  }
  return new Set([...asked].filter((id) => answered.has(id)));
}

/** The cited receipts and those the child never made. */
export function checkReceipts(report: string, made: ReadonlySet<string>): { cited: string[]; missing: string[] } {
  const cited = citedReceipts(report);
  return { cited, missing: cited.filter((id) => !made.has(id)) };
}
