// The graph's stream ("messages" and "updates" modes) as RunEvents: text deltas of the model node, each completed
// model message with its tool calls (and its usage), each tool result, todos, notes and delegations. Pure translation: no store, no graph.
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { DRAWS_AS_NOTHING } from "../vocabulary/invisible-chars.js";
import { messageText } from "../vocabulary/message-text.js";
import { maskSecrets, maskSecretsDeep, secretHoldStart } from "../vocabulary/secret-shapes.js";
import { credentialValues } from "../sandbox/env-scrub.js";
import { usageOf } from "../middleware/util/usage.js";
import { denialOf } from "../sandbox/permission-denial.js";
import { type PresentedMounts, hostPathOf } from "../vocabulary/presented-files.js";
import type { ApprovalDiff, DelegationView, RunEventListener, TodoView, TokenUsage } from "./events.js";

/** Messages inside a stream "updates" chunk, whatever shape the node returned. */
function messagesIn(update: unknown): BaseMessage[] {
  const out: BaseMessage[] = [];
  const visit = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object" && "messages" in v) {
      const ms = (v as { messages: unknown }).messages;
      for (const m of Array.isArray(ms) ? ms : [ms]) if (m && typeof m === "object" && "content" in m) out.push(m as BaseMessage);
    }
  };
  visit(update);
  return out;
}

/** A list written to `field` inside a stream "updates" chunk (tools write through Commands, so it may be an array). */
function fieldIn(update: unknown, field: "todos" | "delegations"): unknown[] | undefined {
  const items = Array.isArray(update) ? update : [update];
  for (const u of items) {
    const t = u && typeof u === "object" ? (u as Record<string, unknown>)[field] : undefined;
    if (Array.isArray(t) && (field === "todos" || t.length > 0)) return t;
  }
  return undefined;
}

/** The paths present_files wrote to `artifacts` in an "updates" chunk (virtual paths), or undefined. */
function artifactsIn(update: unknown): string[] | undefined {
  const out: string[] = [];
  for (const u of Array.isArray(update) ? update : [update]) {
    const a = u && typeof u === "object" ? (u as Record<string, unknown>).artifacts : undefined;
    if (Array.isArray(a)) for (const p of a) if (typeof p === "string" && !out.includes(p)) out.push(p);
  }
  return out.length > 0 ? out : undefined;
}

/** The diff a file tool carried on its result (artifact `{ diff }`), when it is one. */
export function diffOf(artifact: unknown): ApprovalDiff | undefined {
  const d = (artifact as { diff?: Partial<ApprovalDiff> } | null | undefined)?.diff;
  return d && typeof d.path === "string" && typeof d.patch === "string" && typeof d.added === "number" && typeof d.removed === "number" ? (d as ApprovalDiff) : undefined;
}

/** This call's usage, counted into the run's by `count`. */
function countUsage(count: (call: TokenUsage) => void, m: AIMessage): TokenUsage | undefined {
  const call = usageOf(m);
  if (call) count(call);
  return call ?? undefined;
}

/** The notes text written in an "updates" chunk (null/"" when cleared), or undefined when the chunk has none. */
function notesIn(update: unknown): string | undefined {
  for (const u of Array.isArray(update) ? update : [update]) {
    if (!u || typeof u !== "object" || !("task_notes" in u)) continue;
    const n = (u as { task_notes?: { text?: unknown } | null }).task_notes;
    if (n === undefined) continue;
    return typeof n?.text === "string" ? n.text : "";
  }
  return undefined;
}

function translateUpdates(chunk: Record<string, unknown>, runId: string, count: (call: TokenUsage) => void, emit: RunEventListener, mounts: PresentedMounts, credentials: readonly string[]): void {
  for (const [node, update] of Object.entries(chunk)) {
    const presented = artifactsIn(update);
    if (presented) emit({ type: "files.presented", run_id: runId, files: presented.map((p) => hostPathOf(p, mounts)) });
    const todos = fieldIn(update, "todos");
    if (todos) emit({ type: "todos.updated", run_id: runId, todos: todos as TodoView[] });
    const delegations = fieldIn(update, "delegations");
    if (delegations) emit({ type: "delegation.updated", run_id: runId, delegations: delegations as DelegationView[] });
    const notes = notesIn(update);
    if (notes !== undefined) emit({ type: "notes.updated", run_id: runId, notes });
    for (const m of messagesIn(update)) {
      if (node === "model_request" && AIMessage.isInstance(m)) {
        const call = countUsage(count, m);
        const calls = m.tool_calls ?? [];
        emit({ type: "message.completed", run_id: runId, message_id: m.id, text: messageText(m), tool_calls: calls.map((c) => ({ id: c.id, name: c.name })), ...(call ? { usage: call } : {}) });
        // The arguments go to logs and terminals: a key the model repeats is masked there as in its answer (the call
        // itself still gets them whole).
        for (const c of calls) emit({ type: "tool.started", run_id: runId, tool_call_id: c.id, name: c.name, args: maskSecretsDeep(c.args, credentials) });
      } else if (node === "tools" && ToolMessage.isInstance(m)) {
        const diff = diffOf(m.artifact);
        const denial = denialOf(m.artifact);
        emit({
          type: "tool.completed",
          run_id: runId,
          tool_call_id: m.tool_call_id,
          name: m.name ?? "",
          status: m.status === "error" ? "error" : "ok",
          output: messageText(m),
          ...(diff ? { diff: maskSecretsDeep(diff, credentials) as ApprovalDiff } : {}),
          ...(denial ? { denial } : {}),
        });
      }
    }
  }
}

/** A possible start of a PII placeholder ("[EMAIL_1f3a…") at the end of streamed text: held until it is whole. */
const PARTIAL_PLACEHOLDER = /\[(?:[A-Z]{0,6}(?:_[0-9a-f]{0,8})?)?$/;

/**
 * Streamed text with PII placeholders turned back into values (piiRedaction): a placeholder split across chunks is
 * held back until it is complete, so the answer never flashes "[EMAIL_…]" while it streams.
 */
export function placeholderRestorer(restore: (text: string) => string) {
  let held = "";
  return {
    push(text: string): string {
      const all = held + text;
      const tail = PARTIAL_PLACEHOLDER.exec(all.slice(-16));
      held = tail ? tail[0] : "";
      return restore(all.slice(0, all.length - held.length));
    },
    flush(): string {
      const rest = held;
      held = "";
      return restore(rest);
    },
  };
}

/**
 * The word a streamed answer ends with, which the next piece may continue (a key arrives in several pieces).
 * Characters that draw as nothing (zero-width, soft hyphen, variation selectors…) count as part of it: a key split by one is masked as the key it shows as.
 */
const TRAILING_WORD = new RegExp(`[A-Za-z0-9_\\-+/=.~:@${DRAWS_AS_NOTHING}]{1,512}$`, "u");

/** Where the longest end of `text` that begins (or is) one of `known` starts (`text.length` when none does). */
function knownValueStart(text: string, known: readonly string[]): number {
  let start = text.length;
  for (const v of known) for (let k = Math.min(v.length, text.length); k > 0 && text.length - k < start; k--) if (text.endsWith(v.slice(0, k))) start = text.length - k;
  return start;
}

/**
 * Streamed text with secret shapes and the `known` credential values masked (AnswerSecretMasking masks the stored
 * answer): the trailing word, or the start of a known value, is held until the next piece shows where it ends, so
 * "sk-" + "proj…" is never printed in halves before it can be masked.
 */
export function secretMasker(known: readonly string[] = []) {
  let held = "";
  const mask = (text: string) => maskSecrets(text, known);
  return {
    push(text: string): string {
      const all = held + text;
      // …and from where a credential's context starts (a prefix on this line, an unclosed key block).
      const cut = Math.min(all.length - (TRAILING_WORD.exec(all)?.[0].length ?? 0), secretHoldStart(all), knownValueStart(all, known));
      held = all.slice(cut);
      return mask(all.slice(0, cut));
    },
    flush(): string {
      const rest = held;
      held = "";
      return mask(rest);
    },
  };
}

/** How the stream is read: `restore` turns PII placeholders back into values; `mounts` maps presented files to this machine. */
export interface TranslateOptions {
  restore?: (text: string) => string;
  mounts?: PresentedMounts;
}

/** Drains the graph's stream, emitting RunEvents; each model call's token usage goes to `count`. */
export async function translateStream(stream: AsyncIterable<[string, unknown]>, runId: string, count: (call: TokenUsage) => void, emit: RunEventListener, opts: TranslateOptions = {}): Promise<void> {
  const { restore, mounts = {} } = opts;
  const deltas = restore ? placeholderRestorer(restore) : undefined;
  // The environment's credentials, read once per stream: masked in the streamed answer and in every call's arguments.
  const credentials = credentialValues();
  const secrets = secretMasker(credentials);
  // Reasoning streams in pieces too: a key split across them was printed in halves (the twenty-ninth pass's A29c-5).
  const thoughts = secretMasker(credentials);
  const flush = () => {
    const thought = thoughts.flush();
    if (thought) emit({ type: "message.reasoning", run_id: runId, text: thought });
    const restored = deltas?.flush();
    const rest = (restored ? secrets.push(restored) : "") + secrets.flush();
    if (rest) emit({ type: "message.delta", run_id: runId, text: rest });
  };
  for await (const [mode, chunk] of stream) {
    if (mode === "messages") {
      const [msg, meta] = chunk as [BaseMessage, { langgraph_node?: string }];
      if (meta?.langgraph_node === "model_request") {
        const reasoning = msg.additional_kwargs?.reasoning_content;
        const thought = typeof reasoning === "string" && reasoning ? thoughts.push(restore ? restore(reasoning) : reasoning) : "";
        if (thought) emit({ type: "message.reasoning", run_id: runId, text: thought });
        const raw = messageText(msg);
        const restored = deltas && raw ? deltas.push(raw) : raw;
        const text = restored ? secrets.push(restored) : restored;
        if (text) emit({ type: "message.delta", run_id: runId, text });
      }
      continue;
    }
    flush();
    translateUpdates(chunk as Record<string, unknown>, runId, count, emit, mounts, credentials);
  }
  flush();
}
