// When the memory queue is drained (the decision, and why the process still exits promptly):
// - A finished run is only QUEUED by the Memory middleware (a local write, inside the run).
// - `deerflow chat`: a drain starts in the background when the session opens and after every run; the chat never
//   waits for it. Leaving the chat stops it: the run being extracted goes back to the queue synchronously
//   (MemoryDrain.handBack) and its HTTP call is aborted, so exit is not delayed by the model.
// - `deerflow run`: nothing is extracted at the end (a script waits on our exit); the queue is carried to the next
//   start, which drains it before its run, bounded by START_DRAIN_MS, so that run's reminder already shows what
//   the previous one taught. What does not finish in time stays queued for the next start.
// - Either drain takes only the runs made with its own model and endpoint (endpointIdentity): a run made with a local
//   model waits for a start with that model (or expires after 30 days), never read by another.
import type { ResolvedConfig, ResolvedModel } from "../config/load.js";
import { createChatModel } from "../config/model-factory.js";
import { endpointIdentity } from "../config/model-endpoint.js";
import { type Fact, closeMemoryStores, memoryStoreFor } from "../memory/store.js";
import { type DrainResult, MemoryDrain } from "../memory/worker.js";

/** How long a `deerflow run` start gives the queue left by earlier runs. */
export const START_DRAIN_MS = 30_000;

const active = new Set<{ drain: MemoryDrain; abort: AbortController }>();

/** Drains the queue of `config.home` with this model: the runs made with it (nothing when memory is off). */
export async function drainMemoryQueue(
  config: ResolvedConfig,
  model: ResolvedModel,
  opts: { timeoutMs?: number; signal?: AbortSignal; onAdded?: (fact: Fact) => void; onRefused?: (refusal: { text: string; reason: string }) => void } = {},
): Promise<DrainResult | undefined> {
  if (!config.memory.enabled) return undefined;
  const store = memoryStoreFor(config.home);
  const endpoint = endpointIdentity(model);
  if (store.pending(endpoint).length === 0) return { added: [], refused: [], left: 0 };
  const abort = new AbortController();
  // The caller's cancel (Ctrl+C while a `run` start drains) ends the drain at once; the run is handed back.
  if (opts.signal?.aborted) return undefined;
  opts.signal?.addEventListener("abort", () => abort.abort(), { once: true });
  const timer = opts.timeoutMs ? setTimeout(() => abort.abort(), opts.timeoutMs) : undefined;
  timer?.unref?.();
  const entry = {
    drain: new MemoryDrain({
      store,
      endpoint,
      model: createChatModel(model, { streaming: false }),
      signal: abort.signal,
      onAdded: opts.onAdded,
      onRefused: opts.onRefused,
      piiRedaction: config.piiRedaction,
    }),
    abort,
  };
  active.add(entry);
  try {
    return await entry.drain.run();
  } finally {
    if (timer) clearTimeout(timer);
    active.delete(entry);
  }
}

/** Stops every drain of this process now: runs in extraction go back to the queue (synchronously), calls abort. */
export function stopMemoryDrains(): void {
  for (const e of active) {
    e.drain.handBack();
    e.abort.abort();
  }
  active.clear();
}

/** The end of a chat or run: drains stopped (their runs handed back), the memory stores closed. */
export function closeMemory(): void {
  stopMemoryDrains();
  closeMemoryStores();
}
