// Draining the memory queue: each queued run is claimed (one worker per run, across processes), its facts
// extracted by a side model call, checked and written, and only then removed from the queue. A drain that is
// stopped (the chat or run ends) hands its current run back at once, synchronously, so the next start takes it
// up: the write never holds the process open and is never lost.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { randomBytes } from "node:crypto";
import { redactPii } from "../vocabulary/pii-redaction.js";
import { checkFact } from "./fact-filter.js";
import { MAX_NEW_FACTS, type ProposedFact, extractFacts } from "./extract.js";
import type { Fact, MemoryStore, QueuedRun } from "./store.js";

/** One extraction call may take this long before it is abandoned (and retried at a later drain). */
export const EXTRACTION_TIMEOUT_MS = 60_000;

export interface DrainResult {
  added: Fact[];
  refused: { text: string; reason: string }[];
  /** Runs of this endpoint still queued when the drain ended (stopped, failed, or claimed by another process). */
  left: number;
}

export interface DrainOptions {
  store: MemoryStore;
  model: Pick<BaseChatModel, "invoke">;
  /** The model's endpoint (endpointIdentity): only runs made with it are extracted; the others wait for theirs. */
  endpoint: string;
  signal: AbortSignal;
  /** piiRedaction is on: a proposed fact holding personal data (e-mail, phone, card, ID) is refused. */
  piiRedaction?: boolean;
  timeoutMs?: number;
  /** A fact was learned: it is pending, shown to no model until the user approves it. */
  onAdded?: (fact: Fact) => void;
  /** A proposed fact was refused (the reason is also logged in the store for `memory pending`). */
  onRefused?: (refusal: { text: string; reason: string }) => void;
}

export class MemoryDrain {
  private current: number | undefined;
  private readonly owner = `${process.pid}:${randomBytes(4).toString("hex")}`;
  constructor(private readonly opts: DrainOptions) {}

  /** Hands the run being extracted back to the queue now (synchronous: safe right before exit). */
  handBack(): void {
    if (this.current === undefined) return;
    try {
      this.opts.store.release(this.current, { countAttempt: false });
    } catch {
      // A closed or locked store: the claim names this (soon dead) process, so the next start takes it over.
    }
    this.current = undefined;
  }

  /** One proposed fact: stored as pending (learned facts wait for the user's review), or refused and logged. */
  private keep(p: ProposedFact, item: QueuedRun, out: DrainResult, addedForRun: number): void {
    const { store } = this.opts;
    const pii = this.opts.piiRedaction && redactPii(p.text) !== p.text;
    // Past the run's share, a proposal is refused and listed (the twenty-first pass's A21-3: the rest vanished unsaid);
    // its own refusal, if it has one, is the reason given (a secret's text is then withheld, as always).
    const full = addedForRun >= MAX_NEW_FACTS;
    const own = full ? checkFact(p.text) : undefined;
    const r = pii
      ? ({ status: "refused", reason: "it holds personal data, which is not remembered while piiRedaction is on" } as const)
      : own
        ? ({ status: "refused", reason: "reason" in own ? own.reason : `one run adds at most ${MAX_NEW_FACTS} new facts; this one came after them` } as const)
        : store.add({ scope: p.scope, project: item.project, text: p.text, sourceThread: item.thread_id, status: "pending" });
    if (r.status === "added") {
      out.added.push(r.fact);
      this.opts.onAdded?.(r.fact);
    } else if (r.status === "refused") {
      store.recordRefusal({ text: p.text, reason: r.reason, sourceThread: item.thread_id, withhold: pii });
      out.refused.push({ text: p.text, reason: r.reason });
      this.opts.onRefused?.({ text: p.text, reason: r.reason });
    }
  }

  async run(): Promise<DrainResult> {
    const { store, model, signal } = this.opts;
    const out: DrainResult = { added: [], refused: [], left: 0 };
    while (!signal.aborted) {
      const item = store.claim(this.owner, this.opts.endpoint);
      if (!item) break;
      this.current = item.id;
      try {
        // Approved facts only: one waiting for review reaches no model, this one included (it may come from a run
        // kept on another endpoint: A37d-1). A pending fact proposed again is only refreshed (store.add de-duplicates).
        const known = store
          .list({ project: item.project, status: "approved" })
          .slice(0, 60)
          .map((f) => f.text);
        const callSignal = AbortSignal.any([signal, AbortSignal.timeout(this.opts.timeoutMs ?? EXTRACTION_TIMEOUT_MS)]);
        const proposed = await extractFacts(model, { known, transcript: item.transcript, hasProject: item.project !== "" }, callSignal, (u) => store.spending.record(item.thread_id, u));
        if (this.current !== item.id) break; // handed back meanwhile (stopped)
        const before = out.added.length;
        for (const p of proposed) this.keep(p, item, out, out.added.length - before);
        store.done(item.id);
        this.current = undefined;
      } catch {
        if (this.current === item.id) store.release(item.id, { countAttempt: !signal.aborted });
        this.current = undefined;
        break; // stopped, or the model failed: the run waits for the next drain
      }
    }
    out.left = store.pending(this.opts.endpoint).length;
    return out;
  }
}
