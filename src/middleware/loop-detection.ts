// LoopDetection — WHY afterModel: the moment to judge an iteration is right after the model proposed its tool
// calls and BEFORE they run, so a forced stop can strip them (no dangling calls, nothing executed). WHY
// beforeAgent: window, warnings and per-tool counts are per run. WHY wrapModelCall: the warning must reach the
// next model call.
// WHY its position (late in the stack, after SubagentLimit, before TokenBudget/Clarification): after* hooks run in
// reverse, so the middlewares listed after it (SafetyFinishReason / ModelLengthFinishReason, TokenBudget) have
// already stripped truncated or over-budget tool calls when we hash what is left.
//
// The warning: a pending-warning text is kept in this middleware's state (set in afterModel, consumed by the very
// next model call, cleared by the next afterModel) and wrapModelCall appends it to THAT request only, as a
// trailing `<system-reminder>` message that is never written to `messages`. Chosen over appending to the system
// prompt because the system prompt must stay byte-identical for the provider's prefix cache (one changed system
// prompt re-bills the whole conversation), and over a SystemMessage mid-conversation because many chat templates
// (llama.cpp, vLLM) reject a system message that is not first. It is not a fake user message in the history: the
// checkpoint never contains it.
//
// The forced stop: the AI message is replaced by id with the same content, no tool calls and a "[FORCED STOP]"
// line, and `stop_reason` becomes "loop_capped". An AI message without tool calls already routes the graph to
// its normal exit, so no `jumpTo: "end"` is returned: verified on langchain 1.5.14, a jump to "end" from an
// afterModel node that is not the FIRST one in the list goes straight to END and skips the afterModel hooks of
// earlier middleware and EVERY afterAgent hook (e.g. Sandbox's release).
import { TRANSIENT_MARKER } from "../vocabulary/message-markers.js";
import { createHash } from "node:crypto";
import { AIMessage, type BaseMessage, HumanMessage, type ToolCall } from "@langchain/core/messages";
import { StateSchema } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { STOP_REASON_VALUE } from "./util/stop-reason.js";
import { LOOP_CAPPED } from "../vocabulary/stop-reasons.js";
import { stripToolCalls } from "./util/strip-tool-calls.js";
import { z } from "zod";

export interface LoopDetectionOptions {
  /** Repeats of the same iteration (see `effectiveRepeats`) that trigger the warning. Default 3. */
  warnThreshold?: number;
  /** Repeats that force the run to stop. Default 5. */
  hardLimit?: number;
  /** How many recent iteration hashes are kept. Default 20. */
  windowSize?: number;
  /** Calls of one tool in one run that trigger the warning. Default 30. */
  toolWarn?: number;
  /** Calls of one tool in one run that force the run to stop. Default 50. */
  toolHardLimit?: number;
  /** Lines per read_file bucket when hashing start_line/end_line. Default 200. */
  readFileBucketLines?: number;
}

export const LOOP_WARNING_PREFIX = "[LOOP DETECTED] You are repeating the same tool calls";
export const FORCED_STOP_TEXT = "[FORCED STOP] Repeated tool calls detected; stopping.";

export const loopDetectionState = new StateSchema({
  /** Hashes of the last `windowSize` iterations that had tool calls, oldest first. */
  loop_window: z.array(z.string()).default(() => []),
  /** Patterns already warned about in this run ("hash:…", "cycle:…", "tool:<name>"): each warns once. */
  loop_warned: z.array(z.string()).default(() => []),
  /** Warning to show on the next model call only (null: none). */
  loop_pending_warning: z.string().nullable().default(null),
  /** Tool calls per tool name in this run. */
  tool_call_counts: z.record(z.string(), z.number()).default(() => ({})),
  /** Why the run was stopped by a guard; "loop_capped" from here. Last write wins; reset at each run start. */
  stop_reason: STOP_REASON_VALUE,
});

/** JSON with object keys sorted at every level, so equal arguments hash equally whatever their key order. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : stableStringify(v))).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(",")}}`;
}

/** read_file(start_line, end_line) → the 200-line bucket of each bound, so re-reading nearby ranges counts as a repeat. */
function normalizeArgs(name: string, args: unknown, bucketLines: number): unknown {
  if (name !== "read_file" || !args || typeof args !== "object") return args;
  const out: Record<string, unknown> = { ...(args as Record<string, unknown>) };
  for (const key of ["start_line", "end_line"]) {
    const n = Number(out[key]);
    // Lines are 1-based: lines 1–200 → bucket 0, 201–400 → bucket 1, …
    if (out[key] !== undefined && out[key] !== null && Number.isFinite(n)) out[key] = `bucket:${Math.floor((Math.max(1, n) - 1) / bucketLines)}`;
  }
  return out;
}

/** One call's identity: its name plus its (normalised) arguments. */
export function toolCallHash(call: Pick<ToolCall, "name" | "args">, bucketLines = 200): string {
  return `${call.name}:${stableStringify(normalizeArgs(call.name, call.args ?? {}, bucketLines))}`;
}

/** One iteration's identity: order-independent (per-call identities sorted) digest of all its tool calls. */
export function iterationHash(calls: readonly Pick<ToolCall, "name" | "args">[], bucketLines = 200): string {
  const parts = calls.map((c) => toolCallHash(c, bucketLines)).sort();
  return createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 16);
}

/**
 * How often the current iteration repeats, as the larger of two measures over `window` (which already ends with
 * the current hash c):
 * - count: occurrences of c in the window, the current one included (A A A → 3);
 * - cycle (period 2): let p be the previous hash, p ≠ c. The alternating tail is the longest suffix of the window
 *   that reads …, p, c, p, c (position i from the end holds c when i is even, p when i is odd); call its length
 *   L. Once L ≥ 4 (two complete p-c units), every iteration of that tail after its first one is a repeat:
 *   cycle = L − 1 (A B A B → 3, A B A B A → 4, A B A B A B → 5). Below L = 4 the cycle measure is 0.
 * The plain count would reach the same numbers only after twice as many iterations.
 */
export function effectiveRepeats(window: readonly string[]): { repeats: number; count: number; cycle: number } {
  const n = window.length;
  if (n === 0) return { repeats: 0, count: 0, cycle: 0 };
  const c = window[n - 1]!;
  const count = window.filter((h) => h === c).length;
  let cycle = 0;
  if (n >= 4 && window[n - 2] !== c) {
    const p = window[n - 2]!;
    let L = 0;
    while (L < n && window[n - 1 - L] === (L % 2 === 0 ? c : p)) L++;
    if (L >= 4) cycle = L - 1;
  }
  return { repeats: Math.max(count, cycle), count, cycle };
}

function summarize(calls: readonly Pick<ToolCall, "name">[]): string {
  const names = [...new Set(calls.map((c) => c.name))];
  return names.length <= 4 ? names.join(", ") : `${names.slice(0, 4).join(", ")}, …`;
}

export function loopDetectionMiddleware(options: LoopDetectionOptions = {}) {
  const warnThreshold = options.warnThreshold ?? 3;
  const hardLimit = options.hardLimit ?? 5;
  const windowSize = Math.max(1, options.windowSize ?? 20);
  const toolWarn = options.toolWarn ?? 30;
  const toolHardLimit = options.toolHardLimit ?? 50;
  const bucketLines = Math.max(1, options.readFileBucketLines ?? 200);

  return createMiddleware({
    name: "LoopDetection",
    stateSchema: loopDetectionState,
    beforeAgent: () => ({
      loop_window: [],
      loop_warned: [],
      loop_pending_warning: null,
      tool_call_counts: {},
      stop_reason: null,
    }),
    wrapModelCall: (request, handler) => {
      const warning = request.state.loop_pending_warning;
      if (!warning) return handler(request);
      const reminder = new HumanMessage({
        id: `loop-warning-${createHash("sha256").update(warning).digest("hex").slice(0, 8)}`,
        content: `<system-reminder>\n${warning}\n</system-reminder>`,
        additional_kwargs: { [TRANSIENT_MARKER]: "loop_warning" },
      });
      return handler({ ...request, messages: [...request.messages, reminder] });
    },
    afterModel: (state) => {
      const last: BaseMessage | undefined = state.messages.at(-1);
      const calls = last && AIMessage.isInstance(last) ? (last.tool_calls ?? []) : [];
      if (!last || !AIMessage.isInstance(last) || calls.length === 0) {
        // No tool calls: the run ends here; just drop a warning that was consumed.
        return state.loop_pending_warning ? { loop_pending_warning: null } : undefined;
      }

      const counts: Record<string, number> = { ...(state.tool_call_counts ?? {}) };
      for (const c of calls) counts[c.name] = (counts[c.name] ?? 0) + 1;
      const hash = iterationHash(calls, bucketLines);
      const window = [...(state.loop_window ?? []), hash].slice(-windowSize);
      const { repeats, count, cycle } = effectiveRepeats(window);
      const warned = new Set(state.loop_warned ?? []);
      const base = { loop_window: window, tool_call_counts: counts };

      const cappedTool = [...new Set(calls.map((c) => c.name))].find((name) => counts[name]! >= toolHardLimit);
      if (repeats >= hardLimit || cappedTool !== undefined) {
        const why = repeats >= hardLimit ? `the same tool calls (${summarize(calls)}) were repeated ${repeats} times` : `'${cappedTool}' was called ${counts[cappedTool!]} times in this run`;
        return {
          ...base,
          loop_pending_warning: null,
          stop_reason: LOOP_CAPPED,
          messages: [stripToolCalls(last, `${FORCED_STOP_TEXT} (${why})`)],
        };
      }

      let warning: string | null = null;
      const newlyWarned: string[] = [];
      if (repeats >= warnThreshold) {
        const key = cycle > count ? `cycle:${[window[window.length - 2], hash].sort().join("+")}` : `hash:${hash}`;
        if (!warned.has(key)) {
          newlyWarned.push(key);
          const how = cycle > count ? "in a cycle (the same two steps over and over)" : `(${summarize(calls)}, ${repeats} times)`;
          warning = `${LOOP_WARNING_PREFIX} ${how}; their results will not change. Try a different approach or finish: answer with what you have and say what is missing.`;
        }
      }
      if (warning === null) {
        const busy = [...new Set(calls.map((c) => c.name))].find((name) => counts[name]! >= toolWarn && !warned.has(`tool:${name}`));
        if (busy !== undefined) {
          newlyWarned.push(`tool:${busy}`);
          warning = `${LOOP_WARNING_PREFIX}: '${busy}' has been called ${counts[busy]} times in this run (the limit is ${toolHardLimit}). Try a different approach or finish: answer with what you have and say what is missing.`;
        }
      }
      return {
        ...base,
        loop_pending_warning: warning,
        ...(newlyWarned.length > 0 ? { loop_warned: [...warned, ...newlyWarned] } : {}),
      };
    },
  });
}
