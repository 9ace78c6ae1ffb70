// DelegationLedger (docs/architecture.md, Subagents) — shows the model the thread's `delegations` ledger as "work already delegated" on
// every model call, so it reuses finished subagent results (reading the full text at `result_ref` with read_file)
// instead of delegating the same work twice. The ledger lives in state (it survives summarization, which may have
// dropped the `task` calls and their results from `messages`); this middleware only reads it.
// WHY wrapModelCall: the listing is for the model's request only. It is appended as a trailing `<system-reminder>`
// HumanMessage to THAT request and never written to `messages` (like LoopDetection's and TokenBudget's
// reminders): the system prompt stays byte-identical (provider prefix cache), no system message appears
// mid-conversation (many chat templates reject it), and the checkpoint never stores a fake user message. The
// reminder carries a stable id derived from its text, so an unchanged ledger renders byte-identically call after
// call.
// WHY it declares `delegations` (THREAD_STATE_VALUES.delegations, same reducer as ThreadState): langchain hands a
// middleware only the state fields its own schema declares (plus messages).
// Position: no DeerFlow anchor and no state writes, so only its place among other trailing reminders depends on
// the list; natural place: right next to SubagentLimit (`nextTo("SubagentLimit", …)`).
//
// Rendering (`renderLedger`): most recent delegation first — the newest results are the likeliest to be asked for
// again, and when the listing is over `maxChars` (default 6000) the OLDEST entries are the ones left out (a line
// says how many). Every entry shows id, subagent_type, description, status, stop_reason, result_brief (one line,
// trimmed) and result_ref. Entry text comes from subagents and models, so tags that would close or open a
// `<system-reminder>` are neutralised.
import { TRANSIENT_MARKER } from "../vocabulary/message-markers.js";
import { createHash } from "node:crypto";
import { HumanMessage } from "@langchain/core/messages";
import { StateSchema } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { THREAD_STATE_VALUES } from "../state/thread-state.js";
import type { DelegationEntry } from "../state/types.js";

export interface DelegationLedgerOptions {
  /** Longest ledger text (header and entries, without the `<system-reminder>` tags). Default 6000. */
  maxChars?: number;
  /** Longest result brief shown per entry (the ledger keeps up to 2000). Default 500. */
  briefChars?: number;
}

export const DEFAULT_LEDGER_MAX_CHARS = 6000;
export const DEFAULT_LEDGER_BRIEF_CHARS = 500;
export const LEDGER_HEADER =
  "Work already delegated in this thread (most recent first). Reuse these results instead of delegating the same work again: read a full result with read_file(result_ref). Delegate again only for new work, or to retry a delegation that failed or was capped; one still pending/running will report back, do not start it twice.";

const stateSchema = new StateSchema({ delegations: THREAD_STATE_VALUES.delegations });

/** One line, `max` chars at most (an ellipsis marks a cut); reminder tags neutralised. */
function clip(text: string, max: number): string {
  const oneLine = text
    .replace(/<(\/?)system-reminder>/gi, "[$1system-reminder]")
    .replace(/\s+/g, " ")
    .trim();
  return oneLine.length > max ? `${oneLine.slice(0, Math.max(0, max - 1))}…` : oneLine;
}

function renderEntry(e: DelegationEntry, briefChars: number): string {
  const status = e.stop_reason ? `${e.status}, stop_reason ${e.stop_reason}` : e.status;
  const lines = [`- ${clip(String(e.id), 120)} · ${clip(String(e.subagent_type ?? "?"), 60)} · ${status}: ${clip(String(e.description ?? ""), 200)}`];
  if (typeof e.result_brief === "string" && e.result_brief.trim()) lines.push(`  result_brief: ${clip(e.result_brief, briefChars)}`);
  if (typeof e.result_ref === "string" && e.result_ref.trim()) lines.push(`  result_ref: ${clip(e.result_ref, 300)}`);
  return lines.join("\n");
}

/**
 * The ledger as text of at most `maxChars` characters: a header, then the entries most recent first (the ledger
 * is stored oldest first). Entries that do not fit are the oldest ones, dropped whole, and a last line counts them;
 * if even the newest entry does not fit, it is cut. Empty string for an empty ledger.
 */
export function renderLedger(entries: readonly DelegationEntry[], maxChars = DEFAULT_LEDGER_MAX_CHARS, briefChars = DEFAULT_LEDGER_BRIEF_CHARS): string {
  if (entries.length === 0 || maxChars <= 0) return "";
  const newestFirst = [...entries].reverse();
  const omittedLine = (n: number) => `(${n} older delegation${n === 1 ? "" : "s"} not shown)`;
  let text = LEDGER_HEADER;
  let shown = 0;
  for (const entry of newestFirst) {
    const candidate = `${text}\n${renderEntry(entry, briefChars)}`;
    const rest = newestFirst.length - shown - 1;
    // Keep room for the "not shown" line whenever older entries remain after this one.
    const reserve = rest > 0 ? 1 + omittedLine(rest).length : 0;
    if (candidate.length + reserve > maxChars) break;
    text = candidate;
    shown++;
  }
  if (shown === 0) {
    // Not even the newest entry fits whole: show as much of it as fits.
    const full = `${text}\n${renderEntry(newestFirst[0]!, briefChars)}`;
    return full.length <= maxChars ? full : `${full.slice(0, Math.max(0, maxChars - 1))}…`;
  }
  if (shown < newestFirst.length) text = `${text}\n${omittedLine(newestFirst.length - shown)}`;
  return text.length <= maxChars ? text : text.slice(0, maxChars);
}

export function delegationLedgerMiddleware(options: DelegationLedgerOptions = {}) {
  const maxChars = options.maxChars ?? DEFAULT_LEDGER_MAX_CHARS;
  const briefChars = options.briefChars ?? DEFAULT_LEDGER_BRIEF_CHARS;
  if (!Number.isInteger(maxChars) || maxChars < LEDGER_HEADER.length + 20) {
    throw new RangeError(`DelegationLedger: maxChars must be an integer of at least ${LEDGER_HEADER.length + 20} (got ${String(maxChars)}).`);
  }
  if (!Number.isInteger(briefChars) || briefChars < 1) throw new RangeError(`DelegationLedger: briefChars must be a positive integer (got ${String(briefChars)}).`);

  return createMiddleware({
    name: "DelegationLedger",
    stateSchema,
    wrapModelCall: (request, handler) => {
      const entries = ((request.state as { delegations?: DelegationEntry[] | null }).delegations ?? []) as DelegationEntry[];
      const text = renderLedger(entries, maxChars, briefChars);
      if (!text) return handler(request);
      const reminder = new HumanMessage({
        id: `delegation-ledger-${createHash("sha256").update(text).digest("hex").slice(0, 8)}`,
        content: `<system-reminder>\n${text}\n</system-reminder>`,
        additional_kwargs: { [TRANSIENT_MARKER]: "delegation_ledger" },
      });
      return handler({ ...request, messages: [...request.messages, reminder] });
    },
  });
}
