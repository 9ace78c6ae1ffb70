// Approvals — who says yes to an ask-first shell command (see shell-audit.ts), and how the answer is remembered.
//
// Modes: `ask` (default) and `auto-edit` send ask-first commands to the broker (auto-edit differs only for file
// edits, which are not gated here); `yolo` runs ask-first commands without asking. Blocked commands stay blocked
// in every mode — the middleware never consults the broker for them.
// "allow_always" is remembered per thread per normalised command for the rest of the process (not persisted).
import type { ApprovalMode } from "../vocabulary/approval-modes.js";
import { normalizeCommand } from "./shell-audit.js";

export type ApprovalDecision = "allow_once" | "allow_always" | "deny";

export interface ApprovalRequest {
  threadId: string;
  toolCallId: string;
  tool: string;
  command: string;
  /** Why the command needs approval (the audit rule's reason). */
  reason: string;
  /** The run's signal: a broker waiting for a person gives up when the run is cancelled. */
  signal?: AbortSignal;
}

export interface ApprovalBroker {
  request(req: ApprovalRequest): Promise<ApprovalDecision>;
  /** Said to the model after a denial, e.g. who denied it and what to do. */
  denialNote?: string;
}

/** Unattended runs: `--yes` approves guarded commands once each; without it they are denied. */
export function headlessBroker(options: { yes: boolean }): ApprovalBroker {
  return { request: async () => (options.yes ? "allow_once" : "deny") };
}

/** Raised when a command waits for the user (the TUI shows it and answers with `respond`). */
export interface ApprovalRequestedEvent {
  type: "approval.requested";
  id: string;
  thread_id: string;
  tool_call_id: string;
  tool: string;
  command: string;
  reason: string;
}

/** The approval settings a run reads at every guarded call: the TUI may change `mode` while a run works. */
export interface ApprovalSettings {
  mode: ApprovalMode;
  broker: ApprovalBroker;
}

export interface EventBroker extends ApprovalBroker {
  /** Answers a pending request; false when `id` is unknown (already answered or cancelled). */
  respond(id: string, decision: ApprovalDecision): boolean;
  /** Ids of the requests still waiting. */
  pending(): string[];
}

function abortError(signal: AbortSignal): Error {
  const r = signal.reason;
  if (r instanceof Error && r.name === "AbortError") return r;
  return Object.assign(new Error("The approval request was cancelled"), { name: "AbortError", cause: r });
}

/** A broker that emits `approval.requested` and waits for `respond(id, decision)`; a cancelled run rejects. */
export function eventBroker(emit: (event: ApprovalRequestedEvent) => void): EventBroker {
  const waiting = new Map<string, (d: ApprovalDecision) => void>();
  let seq = 0;
  return {
    denialNote: "the user denied it; do not retry it, ask the user or take another way",
    request(req) {
      if (req.signal?.aborted) return Promise.reject(abortError(req.signal));
      const id = `appr_${++seq}`;
      return new Promise<ApprovalDecision>((resolve, reject) => {
        const onAbort = () => {
          waiting.delete(id);
          reject(abortError(req.signal!));
        };
        waiting.set(id, (d) => {
          waiting.delete(id);
          req.signal?.removeEventListener("abort", onAbort);
          resolve(d);
        });
        req.signal?.addEventListener("abort", onAbort, { once: true });
        emit({
          type: "approval.requested",
          id,
          thread_id: req.threadId,
          tool_call_id: req.toolCallId,
          tool: req.tool,
          command: req.command,
          reason: req.reason,
        });
      });
    },
    respond(id, decision) {
      const answer = waiting.get(id);
      if (!answer) return false;
      answer(decision);
      return true;
    },
    pending: () => [...waiting.keys()],
  };
}

/** Commands approved "always", per thread, for the life of the process. */
export class ApprovalMemory {
  private readonly byThread = new Map<string, Set<string>>();

  has(threadId: string, command: string): boolean {
    return this.byThread.get(threadId)?.has(normalizeCommand(command)) ?? false;
  }

  remember(threadId: string, command: string): void {
    let set = this.byThread.get(threadId);
    if (!set) this.byThread.set(threadId, (set = new Set()));
    set.add(normalizeCommand(command));
  }

  clear(threadId?: string): void {
    if (threadId === undefined) this.byThread.clear();
    else this.byThread.delete(threadId);
  }
}

/** The process-wide memory the middleware uses unless given its own. */
export const processApprovalMemory = new ApprovalMemory();

/**
 * Whether an ask-first command may run: yolo → yes; remembered "always" → yes; else the broker decides
 * (an "allow_always" answer is remembered). Blocked commands must never reach this function.
 */
export async function resolveApproval(
  req: ApprovalRequest,
  opts: { mode: ApprovalMode; broker: ApprovalBroker; memory?: ApprovalMemory },
): Promise<"allow" | "deny"> {
  if (opts.mode === "yolo") return "allow";
  const memory = opts.memory ?? processApprovalMemory;
  if (memory.has(req.threadId, req.command)) return "allow";
  const decision = await opts.broker.request(req);
  if (decision === "allow_always") memory.remember(req.threadId, req.command);
  return decision === "deny" ? "deny" : "allow";
}
