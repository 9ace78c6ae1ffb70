// SubagentRuntime — one shared capacity for subagent runs, usable by several agent graphs at once (docs/architecture.md, Subagents:
// "Several agent graphs can share one SubagentRuntime's capacity"). A counting semaphore with a FIFO queue:
// `run(fn, signal)` starts `fn` when a slot is free; a queued caller whose signal aborts leaves the queue at once
// (rejects with an AbortError) and never takes a slot. Satisfies createDeerflowAgent's SubagentRuntimeLike
// (no batch worker: `batchWorker` stays undefined).
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { SubagentRuntimeLike } from "../agent/create-deerflow-agent.js";
import { createTaskTool } from "./task-tool.js";
import { SubagentRegistry } from "./registry.js";
import { abortErrorFrom } from "../vocabulary/abort-error.js";

export const DEFAULT_MAX_CONCURRENT_SUBAGENTS = 3;

export interface SubagentRuntimeStats {
  active: number;
  queued: number;
  /** Highest `active` seen since creation (or the last resetStats). */
  maxSeenActive: number;
  started: number;
  completed: number;
  cancelledWhileQueued: number;
}

interface Waiter {
  grant: () => void;
}

const NEVER = new AbortController().signal;

export class SubagentRuntime implements SubagentRuntimeLike {
  readonly maxConcurrent: number;
  readonly batchWorker?: { readonly started: boolean } = undefined;
  #active = 0;
  readonly #queue: Waiter[] = [];
  #maxSeen = 0;
  #started = 0;
  #completed = 0;
  #cancelledQueued = 0;

  constructor(options: { maxConcurrent?: number } = {}) {
    const n = options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT_SUBAGENTS;
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`SubagentRuntime: maxConcurrent must be a positive integer (got ${String(n)}).`);
    this.maxConcurrent = n;
  }

  get stats(): SubagentRuntimeStats {
    return {
      active: this.#active,
      queued: this.#queue.length,
      maxSeenActive: this.#maxSeen,
      started: this.#started,
      completed: this.#completed,
      cancelledWhileQueued: this.#cancelledQueued,
    };
  }

  resetStats(): void {
    this.#maxSeen = this.#active;
  }

  /** The `task` tool of `features.subagent: true` (built-in subagent types; children in this runtime's capacity). */
  createTaskTool(ctx: { model: BaseChatModel; tools: readonly unknown[] }) {
    return createTaskTool({ runtime: this, registry: new SubagentRegistry(), model: ctx.model, tools: () => ctx.tools as never });
  }

  /** Run `fn` in a slot (FIFO when all are busy). `fn` receives `signal` (or one that never aborts). */
  async run<T>(fn: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    this.#started++;
    try {
      return await fn(signal ?? NEVER);
    } finally {
      this.#completed++;
      this.#release();
    }
  }

  #take(): void {
    this.#active++;
    if (this.#active > this.#maxSeen) this.#maxSeen = this.#active;
  }

  #acquire(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortErrorFrom(signal, "The subagent was cancelled before it started"));
    if (this.#active < this.maxConcurrent && this.#queue.length === 0) {
      this.#take();
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          this.#take();
          resolve();
        },
      };
      const onAbort = () => {
        const i = this.#queue.indexOf(waiter);
        if (i === -1) return;
        this.#queue.splice(i, 1);
        this.#cancelledQueued++;
        reject(abortErrorFrom(signal, "The subagent was cancelled while waiting for a free slot"));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  #release(): void {
    this.#active--;
    const next = this.#queue.shift();
    if (next) next.grant();
  }
}
