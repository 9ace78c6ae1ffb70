// Runs a page conversion (convert-worker-source.ts) in a worker thread, within a heap limit and a wall-time limit,
// so no page can block the main thread: on the limit, on running out of heap, or on the turn's abort signal the worker
// is terminated and the caller falls back (page-content.ts). The worker starts on the first page that needs it and
// is kept, unreferenced (it never keeps deerflow alive), for the next page: starting it and loading its libraries
// costs a few hundred milliseconds.
// A second page converting at the same time gets its own worker (up to MAX_WORKERS); a stopped worker is never reused.
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { CONVERT_WORKER_SOURCE } from "./convert-worker-source.js";
import type { PageText } from "./page-content.js";

/** Wall time one conversion may take once its libraries are loaded. */
export const CONVERT_LIMIT_MS = 15_000;
/** Loading the libraries (not under a page's control); only a broken install gets near it. */
const START_LIMIT_MS = 60_000;
/** The worker's heap: a hostile PDF ran to 1.7 GB in the thirteenth pass. */
const HEAP_MB = 512;
/** A PDF past this many pages is read from its first pages, within `ms`. */
const PDF_LIMITS = { pages: 200, ms: 10_000 };

export type ConvertJob = { kind: "html"; html: string } | { kind: "pdf"; bytes: Uint8Array };

export interface ConvertLimits {
  /** Default CONVERT_LIMIT_MS. */
  limitMs?: number;
  signal?: AbortSignal;
  /** Called when the job's libraries are loaded and the page is being converted (its time limit runs from here). */
  onStarted?: () => void;
}

/** The page; or the libraries' own error; or why the worker was stopped. */
export type ConvertOutcome = { page: PageText } | { error: string } | { stopped: "time" | "memory" | "cancelled" | "failed"; detail: string };

let idle: Worker | undefined;
let nextId = 0;

function startWorker(): Worker {
  // Resolved here, from deerflow's own location (src under vitest, the bundle or dist otherwise).
  const require = createRequire(import.meta.url);
  const paths = {
    linkedom: require.resolve("linkedom"),
    readability: require.resolve("@mozilla/readability"),
    turndown: require.resolve("turndown"),
    unpdf: require.resolve("unpdf"),
  };
  const worker = new Worker(CONVERT_WORKER_SOURCE, { eval: true, workerData: { paths, pdfLimits: PDF_LIMITS }, resourceLimits: { maxOldGenerationSizeMb: HEAP_MB } });
  // Between jobs nobody listens: an error with no listener would be thrown on the main thread, ending deerflow.
  worker.on("error", () => {});
  worker.on("exit", () => {
    if (idle === worker) idle = undefined;
  });
  return worker;
}

const CANCELLED = { stopped: "cancelled", detail: "the turn was cancelled" } as const;

/**
 * Converts one page in a worker; never rejects, never blocks the main thread longer than a message copy. At most
 * MAX_WORKERS convert at once (each may fill its heap: a model's parallel calls to hostile pages would otherwise
 * add 512 MB each); the others wait their turn, which their time limit does not count.
 */
export async function convertInWorker(job: ConvertJob, limits: ConvertLimits = {}): Promise<ConvertOutcome> {
  if (!(await takeSlot(limits.signal))) return CANCELLED;
  try {
    return await runJob(job, limits);
  } finally {
    busy--;
    waiting.shift()?.();
  }
}

const MAX_WORKERS = 2;
let busy = 0;
const waiting: (() => void)[] = [];

/** Whether a worker slot was taken (false: the signal aborted first). */
function takeSlot(signal: AbortSignal | undefined): Promise<boolean> {
  if (busy < MAX_WORKERS) {
    busy++;
    return Promise.resolve(true);
  }
  return new Promise((resolve) => {
    const grant = () => {
      signal?.removeEventListener("abort", cancel);
      busy++;
      resolve(true);
    };
    const cancel = () => {
      const at = waiting.indexOf(grant);
      if (at >= 0) waiting.splice(at, 1);
      resolve(false);
    };
    waiting.push(grant);
    signal?.addEventListener("abort", cancel, { once: true });
  });
}

function runJob(job: ConvertJob, limits: ConvertLimits): Promise<ConvertOutcome> {
  const limitMs = limits.limitMs ?? CONVERT_LIMIT_MS;
  const signal = limits.signal;
  if (signal?.aborted) return Promise.resolve(CANCELLED);
  const worker = idle ?? startWorker();
  idle = undefined;
  worker.ref();
  const id = ++nextId;
  return new Promise((resolve) => {
    let timer = setTimeout(() => finish({ stopped: "time", detail: `its libraries did not load within ${START_LIMIT_MS / 1000} s` }), START_LIMIT_MS);
    const onAbort = () => finish(CANCELLED);
    const onMessage = (m: { id: number; started?: true; page?: PageText; error?: string }) => {
      if (m.id !== id) return;
      if (m.started) {
        clearTimeout(timer);
        timer = setTimeout(() => finish({ stopped: "time", detail: `it took longer than ${formatSeconds(limitMs)}` }), limitMs);
        limits.onStarted?.();
      } else if (m.page) finish({ page: m.page }, true);
      else finish({ error: m.error ?? "unknown error" }, true);
    };
    const onError = (err: Error & { code?: string }) =>
      finish(err.code === "ERR_WORKER_OUT_OF_MEMORY" ? { stopped: "memory", detail: `it needed more than ${HEAP_MB} MB` } : { stopped: "failed", detail: err.message.split("\n")[0]! });
    const onExit = () => finish({ stopped: "failed", detail: "the converter stopped" });
    let done = false;
    function finish(outcome: ConvertOutcome, reusable = false) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      worker.off("message", onMessage).off("error", onError).off("exit", onExit);
      if (reusable && !idle) {
        idle = worker;
        worker.unref();
      } else void worker.terminate();
      resolve(outcome);
    }
    worker.on("message", onMessage).on("error", onError).on("exit", onExit);
    signal?.addEventListener("abort", onAbort, { once: true });
    if (job.kind === "pdf") {
      // A copy the worker owns: the fetched Buffer may be a view of a shared pool (and Buffer#slice does not copy).
      const bytes = new Uint8Array(job.bytes);
      worker.postMessage({ id, kind: "pdf", bytes }, [bytes.buffer]);
    } else worker.postMessage({ id, kind: "html", html: job.html });
  });
}

/** "15 s", "2.5 s" */
function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
