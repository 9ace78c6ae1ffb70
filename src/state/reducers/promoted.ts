// Invariant: empty keeps; a new catalog hash or a new explicit turn_id replaces; the same scope unions
// names (ordered, de-duplicated); a write without turn_id inherits the current one.
import type { Promoted } from "../types.js";
import { dedupe, isRecord } from "./util.js";

/** What may be written to `promoted`: a promotion, `{}`, null or undefined (the last three keep). */
export type PromotedUpdate = Promoted | Record<string, never> | null | undefined;

const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === "string");

/**
 * The deferred-tool filter writes `{catalog_hash, names, turn_id}` at the start of a turn; `tool_search`
 * writes `{catalog_hash, names}` (it does not know the turn) and so joins the current scope. A
 * current value with malformed `names` (legacy or corrupt checkpoint) counts as no names.
 */
export function mergePromoted(existing: Promoted | null | undefined, update: PromotedUpdate): Promoted | null {
  if (update == null || !isRecord(update) || Object.keys(update).length === 0) return existing ?? null;
  const next = update as Promoted;
  const current = isRecord(existing) ? existing : null;
  const currentTurn = typeof current?.turn_id === "string" ? current.turn_id : undefined;
  const newTurn = typeof next.turn_id === "string" ? next.turn_id : undefined;
  const replace = current === null || current.catalog_hash !== next.catalog_hash || (newTurn !== undefined && newTurn !== currentTurn);
  const currentNames = current !== null && isStringArray(current.names) ? current.names : [];
  const names = dedupe(replace ? next.names : [...currentNames, ...next.names]);
  const turnId = newTurn ?? currentTurn;
  return turnId === undefined ? { catalog_hash: next.catalog_hash, names } : { catalog_hash: next.catalog_hash, names, turn_id: turnId };
}
