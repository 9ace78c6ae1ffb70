// Invariant: a thread's sandbox id never changes: null keeps, the same id keeps, a different id throws.
import { SandboxConflictError } from "../errors.js";
import type { SandboxState } from "../types.js";
import { isRecord } from "./util.js";

function idOf(state: unknown): string | null {
  if (!isRecord(state)) return null;
  const id = state.sandbox_id;
  return typeof id === "string" && id !== "" ? id : null;
}

/**
 * Several tools may lazily acquire the sandbox in one step and all write the same id; that is fine.
 * A write carrying another id (or trying to unset a bound id) is a lifecycle/isolation bug, so the
 * step fails with a `SandboxConflictError` naming both ids instead of choosing one silently.
 * A current value without an id (null, `{}`) is unbound and takes the incoming value.
 */
export function mergeSandbox(existing: SandboxState | null | undefined, update: SandboxState | null | undefined): SandboxState | null {
  if (update == null) return existing ?? null;
  const existingId = idOf(existing);
  if (existingId === null) return update;
  const incomingId = idOf(update);
  if (incomingId === existingId) return existing ?? null;
  throw new SandboxConflictError(existingId, incomingId);
}
