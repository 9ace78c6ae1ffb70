// Approvals — who says yes to a guarded action, and how the answer is remembered.
//
// What asks (vocabulary/approval-modes.ts `modeAsks`): an ask-first shell command (see shell-audit.ts) asks in `ask`
// and `auto-edit`; a file edit (shown as its diff), a shell command that writes files (the audit's "edit" verdict)
// and any other tool that declares an approval gate ask in `ask` only; `yolo` asks for nothing. Blocked commands stay blocked in every mode — the middleware never consults the
// broker for them.
// A tool declares that it must ask with `declareApprovalGate(tool, gate)`: the gate computes what the user must see
// (a one-line summary, a diff) without side effects; ToolApproval asks before the tool runs.
// "allow_always" is remembered per thread per scope (a normalised command, or "every edit") for the rest of the
// process (not persisted). A denial may carry the user's reason, which reaches the model in the tool result.
import { type ApprovalKind, type ApprovalMode, modeAsks } from "../vocabulary/approval-modes.js";
import { abortErrorFrom } from "../vocabulary/abort-error.js";
import type { DeniedBy } from "../vocabulary/permission-denials.js";
import { credentialValues, maskCredentials } from "./env-scrub.js";
import { maskSecretsDeep } from "../vocabulary/secret-shapes.js";
import { unseenEscaped } from "../vocabulary/terminal-text.js";

export type ApprovalDecision = "allow_once" | "allow_always" | "deny";

/** A decision, and for a denial the user's words to the model. */
export interface ApprovalAnswer {
  decision: ApprovalDecision;
  reason?: string;
}

/** Brokers may answer with a bare decision. */
export type ApprovalReply = ApprovalDecision | ApprovalAnswer;

export interface ApprovalRequest {
  threadId: string;
  toolCallId: string;
  tool: string;
  /** What is approved, on one line: the command, or e.g. "edit /mnt/user-data/workspace/a.ts (+3 −1)". */
  command: string;
  /** Why it needs approval (the audit rule's reason, "file edit", …). */
  reason: string;
  /** Default "command". */
  kind?: ApprovalKind;
  /** The preview the user decides on (an edit's diff). */
  diff?: ApprovalDiff;
  /** What "allow always" covers; default: this command (normalised). */
  scope?: string;
  /** The run's signal: a broker waiting for a person gives up when the run is cancelled. */
  signal?: AbortSignal;
  /**
   * Only a person may approve it: no mode skips the question and `--yes` does not answer it (without a sandbox, a
   * command the audit has a specific concern about: shell-unconfined.ts `needsPerson`).
   */
  needsPerson?: boolean;
}

/** An edit's diff as the approval shows it (the file tools' EditDiff fits). */
export interface ApprovalDiff {
  path: string;
  added: number;
  removed: number;
  patch: string;
  truncated?: boolean;
  created?: boolean;
  binary?: { before: number; after: number };
}

export interface ApprovalBroker {
  request(req: ApprovalRequest): Promise<ApprovalReply>;
  /** Said to the model after a denial, e.g. who denied it and what to do. */
  denialNote?: string;
  /** Who a denial is reported as (`permission_denials`): a person (default), or the headless default. */
  deniedBy?: Extract<DeniedBy, "headless" | "user">;
  /** It says yes to every guarded action a person need not approve (`--yes`). */
  approvesGuarded?: boolean;
}

/** What a tool's gate shows before the tool runs; null: this call needs no approval. */
export interface ApprovalPreview {
  summary: string;
  reason: string;
  diff?: ApprovalDiff;
  /** What "allow always" covers (e.g. "edits": every later edit of the thread). */
  scope: string;
}

export interface ApprovalGate {
  kind: ApprovalKind;
  /** Computes the preview without side effects; throws the tool's own error when the call cannot succeed. */
  preview(args: unknown, runtime: unknown): Promise<ApprovalPreview | null>;
}

const gates = new WeakMap<object, ApprovalGate>();

/** Marks `tool` as asking before it runs (in the modes where `gate.kind` asks). Returns the tool. */
export function declareApprovalGate<T extends object>(tool: T, gate: ApprovalGate): T {
  gates.set(tool, gate);
  return tool;
}

export function approvalGateOf(tool: unknown): ApprovalGate | undefined {
  return tool && typeof tool === "object" ? gates.get(tool) : undefined;
}

export function answerOf(reply: ApprovalReply): ApprovalAnswer {
  return typeof reply === "string" ? { decision: reply } : reply;
}

/** Unattended runs: `--yes` approves guarded actions once each (never one only a person may approve); without it they are denied. */
export function headlessBroker(options: { yes: boolean }): ApprovalBroker {
  return { deniedBy: "headless", approvesGuarded: options.yes, request: async (req) => (options.yes && !req.needsPerson ? "allow_once" : "deny") };
}

/** Raised when an action waits for the user (the TUI shows it and answers with `respond`). */
export interface ApprovalRequestedEvent {
  type: "approval.requested";
  id: string;
  thread_id: string;
  tool_call_id: string;
  tool: string;
  /** "command" (a shell command), "edit" (a file edit, with `diff`), "tool" (another tool). */
  kind: ApprovalKind;
  command: string;
  reason: string;
  diff?: ApprovalDiff;
  /** What "allow always" would cover: an answer of allow_always also settles the other waiting requests of this scope. */
  scope?: string;
}

/** The approval settings a run reads at every guarded call: the TUI may change `mode` while a run works. */
export interface ApprovalSettings {
  mode: ApprovalMode;
  broker: ApprovalBroker;
}

export interface EventBroker extends ApprovalBroker {
  /** Answers a pending request; false when `id` is unknown (already answered or cancelled). */
  respond(id: string, decision: ApprovalDecision, reason?: string): boolean;
  /** Ids of the requests still waiting. */
  pending(): string[];
}

/** A broker that emits `approval.requested` and waits for `respond(id, decision)`; a cancelled run rejects. */
export function eventBroker(emit: (event: ApprovalRequestedEvent) => void): EventBroker {
  const waiting = new Map<string, { answer: (a: ApprovalAnswer) => void; threadId: string; scope: string }>();
  let seq = 0;
  return {
    denialNote: "the user denied it; do not retry it, ask the user or take another way",
    deniedBy: "user",
    request(req) {
      if (req.signal?.aborted) return Promise.reject(abortErrorFrom(req.signal, "The approval request was cancelled"));
      const id = `appr_${++seq}`;
      return new Promise<ApprovalAnswer>((resolve, reject) => {
        const onAbort = () => {
          waiting.delete(id);
          reject(abortErrorFrom(req.signal!, "The approval request was cancelled"));
        };
        const scope = scopeOf(req);
        waiting.set(id, {
          threadId: req.threadId,
          scope,
          answer: (a) => {
            waiting.delete(id);
            req.signal?.removeEventListener("abort", onAbort);
            resolve(a);
          },
        });
        req.signal?.addEventListener("abort", onAbort, { once: true });
        emit({
          type: "approval.requested",
          id,
          thread_id: req.threadId,
          tool_call_id: req.toolCallId,
          tool: req.tool,
          kind: req.kind ?? "command",
          // What every front end shows (the chat, ACP's permission request, stream-json): masked like tool arguments, so
          // a key in a command or an edit is not put on screen to be approved (the thirtieth pass's A30c-5); what draws
          // as nothing shown escaped, never dropped (A44a-5).
          command: unseenEscaped(maskCredentials(req.command)),
          reason: req.reason,
          ...(req.diff ? { diff: maskSecretsDeep(req.diff, credentialValues()) as typeof req.diff } : {}),
          scope: maskCredentials(scope),
        });
      });
    },
    respond(id, decision, reason) {
      const entry = waiting.get(id);
      if (!entry) return false;
      const said = decision === "deny" ? reason?.trim() : undefined;
      entry.answer(said ? { decision, reason: said } : { decision });
      // Parallel calls asked together: "always" for this scope answers the others waiting in it too.
      if (decision === "allow_always") {
        for (const other of [...waiting.values()]) if (other.threadId === entry.threadId && other.scope === entry.scope) other.answer({ decision: "allow_once" });
      }
      return true;
    },
    pending: () => [...waiting.keys()],
  };
}

/** Scopes approved "always", per thread, for the life of the process. */
export class ApprovalMemory {
  private readonly byThread = new Map<string, Set<string>>();

  has(threadId: string, scope: string): boolean {
    return this.byThread.get(threadId)?.has(scope) ?? false;
  }

  remember(threadId: string, scope: string): void {
    let set = this.byThread.get(threadId);
    if (!set) this.byThread.set(threadId, (set = new Set()));
    set.add(scope);
  }

  clear(threadId?: string): void {
    if (threadId === undefined) this.byThread.clear();
    else this.byThread.delete(threadId);
  }
}

/** The process-wide memory the middleware uses unless given its own. */
export const processApprovalMemory = new ApprovalMemory();

/** The memory key of a request: its scope, or the normalised command (commands and scopes never collide). */
function scopeOf(req: ApprovalRequest): string {
  return req.scope !== undefined ? `scope:${req.scope}` : `command:${normalizeCommand(req.command)}`;
}

/** A denial says who denied it (the broker's `deniedBy`) and the user's words when given. */
export type ApprovalVerdict = { verdict: "allow" } | { verdict: "deny"; reason?: string; by: Extract<DeniedBy, "headless" | "user"> };

/**
 * Whether a guarded action may run: a mode that does not ask for its kind → yes; remembered "always" → yes; else the
 * broker decides (an "allow_always" answer is remembered). Blocked commands must never reach this function.
 */
export async function resolveApproval(req: ApprovalRequest, opts: { mode: ApprovalMode; broker: ApprovalBroker; memory?: ApprovalMemory }): Promise<ApprovalVerdict> {
  if (!req.needsPerson && !modeAsks(opts.mode, req.kind ?? "command")) return { verdict: "allow" };
  const memory = opts.memory ?? processApprovalMemory;
  const scope = scopeOf(req);
  if (memory.has(req.threadId, scope)) return { verdict: "allow" };
  const answer = answerOf(await opts.broker.request(req));
  if (answer.decision === "allow_always") memory.remember(req.threadId, scope);
  return answer.decision === "deny" ? { verdict: "deny", reason: answer.reason, by: opts.broker.deniedBy ?? "user" } : { verdict: "allow" };
}

/**
 * The tool result after a denial: what was not approved, who denied it, and the user's own words when given (the
 * model must read them: they are why it was denied).
 */
export function deniedMessage(what: string, broker?: ApprovalBroker, said?: string): string {
  const base = `Denied: ${what} was not approved (${broker?.denialNote ?? "run with --yes to approve guarded actions headless"}).`;
  return said ? `${base} The user said: ${JSON.stringify(said)}` : base;
}

/** The command as remembered for "allow always": trimmed, runs of whitespace collapsed. */
export function normalizeCommand(command: string): string {
  return command.trim().replace(/\s+/g, " ");
}
