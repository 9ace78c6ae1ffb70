// A run on a team database whose lease is found taken over (its machine paused or was cut off past the lease, and
// another machine took the thread) stops at once: its signal aborts with the LeaseLostError, so the model call or
// tool in flight ends, and the store refuses its writes. Its rows are not rolled back: the run that took the thread
// over may already have written after them. SQLite stores have no such leases: nothing to watch.
import { LeaseLostError } from "../persistence/postgres-store.js";
import type { Store } from "../persistence/store.js";
import { findInChain } from "../vocabulary/error-chain.js";

export interface LeaseWatch {
  /** The run's signal: the caller's, also aborted when the lease is lost. */
  signal: AbortSignal | undefined;
  /** The loss, once found. */
  lost(): LeaseLostError | undefined;
  dispose(): void;
}

export function watchLease(store: Store, threadId: string, runId: string, signal: AbortSignal | undefined): LeaseWatch {
  const subscribe = store.runs.onLeaseLost?.bind(store.runs);
  if (!subscribe) return { signal, lost: () => undefined, dispose: () => {} };
  const controller = new AbortController();
  let lost: LeaseLostError | undefined;
  const dispose = subscribe((t, r, err) => {
    if (t !== threadId || r !== runId) return;
    lost = err;
    controller.abort(err);
  });
  return { signal: signal ? AbortSignal.any([signal, controller.signal]) : controller.signal, lost: () => lost, dispose };
}

/** The lease loss behind a run's failure, if that is what ended it. */
export function leaseLostIn(err: unknown): LeaseLostError | undefined {
  return findInChain(err, (e) => e instanceof LeaseLostError) as LeaseLostError | undefined;
}
