// Invariant: upsert by id in first-seen order; a terminal status is never left (the first terminal
// status sticks); the first created_at/run_id are kept; empty keeps; at most the last 50 entries.
import { DELEGATION_RESULT_BRIEF_MAX_CHARS, DELEGATIONS_MAX_ENTRIES, TERMINAL_DELEGATION_STATUSES, type DelegationEntry } from "../types.js";
import { isRecord, truncate } from "./util.js";

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_DELEGATION_STATUSES);

/** True for completed, failed, cancelled, timed_out and polling_timed_out. */
export function isTerminalDelegationStatus(status: unknown): boolean {
  return typeof status === "string" && TERMINAL.has(status);
}

function normalize(entry: DelegationEntry): DelegationEntry {
  if (typeof entry.result_brief !== "string" || entry.result_brief.length <= DELEGATION_RESULT_BRIEF_MAX_CHARS) return entry;
  return { ...entry, result_brief: truncate(entry.result_brief, DELEGATION_RESULT_BRIEF_MAX_CHARS) };
}

const isMissing = (value: unknown) => value === undefined || value === null;

/**
 * How a later write `next` for the same id updates `prev`:
 * - `prev` terminal: it stays as it is (status included); `next` may only fill fields `prev` lacks
 *   (a late result_sha256, updated_at…), so a stale "running" report or a second terminal report
 *   can never rewrite the outcome.
 * - otherwise the fields `next` carries win, except created_at and run_id, which keep their first value.
 */
function upsert(prev: DelegationEntry, next: DelegationEntry): DelegationEntry {
  const merged: Record<string, unknown> = { ...prev };
  const terminal = isTerminalDelegationStatus(prev.status);
  for (const [key, value] of Object.entries(next)) {
    if (value === undefined) continue;
    const firstWins = terminal || key === "created_at" || key === "run_id";
    if (!firstWins || isMissing(merged[key])) merged[key] = value;
  }
  return normalize(merged as DelegationEntry);
}

/** The subagent ledger: survives compaction and tells the model what was already delegated. */
export function mergeDelegations(existing: readonly DelegationEntry[] | null | undefined, update: readonly DelegationEntry[] | null | undefined): DelegationEntry[] {
  if (update == null || update.length === 0) return (existing ?? []) as DelegationEntry[];
  const byId = new Map<string, DelegationEntry>();
  for (const entry of [...(existing ?? []), ...update]) {
    if (!isRecord(entry) || typeof entry.id !== "string") continue;
    const prev = byId.get(entry.id);
    byId.set(entry.id, prev === undefined ? normalize(entry) : upsert(prev, entry));
  }
  const merged = [...byId.values()];
  return merged.length > DELEGATIONS_MAX_ENTRIES ? merged.slice(-DELEGATIONS_MAX_ENTRIES) : merged;
}
