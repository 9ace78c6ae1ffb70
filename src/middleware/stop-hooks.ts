// StopHooks — WHY: the user's Stop hooks (the lead) and SubagentStop hooks (a subagent) run when the agent is about to
// end its turn, in Claude Code's protocol: exit 2, or `"decision": "block"` with a reason, makes the agent go on with
// the reason as its next instruction. WHY bounded: Claude Code hands hooks `stop_hook_active` and trusts them to
// check it; deerflow does too, and also honours at most MAX_STOP_CONTINUATIONS blocks per run, so a hook that always
// blocks ends like any other (its later blocks are reported, not followed).
// WHY afterModel, outermost (first in the stack): after* hooks run bottom to top, so by the time this one runs every
// guard has counted the answer and stripped what it stops (LoopDetection, TokenBudget, TurnLimit, the finish-reason
// guards); a guard's stop (`stop_reason` set) is final and no hook runs. The jump goes to the model within the same
// run, so the run's guards keep counting (a beforeAgent reset would not run again).
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { StateSchema } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { z } from "zod";
import { type HookSetup, hooksFor, runHooks } from "../hooks/run-hooks.js";
import { HIDDEN_MARKER } from "../vocabulary/message-markers.js";
import { messageText } from "../vocabulary/message-text.js";
import { readRunConfigurable } from "../vocabulary/configurable.js";
import { STOP_REASON_VALUE } from "./util/stop-reason.js";

/** Blocks a run follows before its Stop (or a subagent's SubagentStop) hooks can no longer keep it going. */
export const MAX_STOP_CONTINUATIONS = 3;
/** HIDDEN_MARKER kind of the message that carries a Stop hook's reason to the model. */
export const STOP_HOOK_KIND = "stop_hook";

// TurnLimit's count and cap (`--max-turns`, a subagent type's maxTurns; null without one): a continuation never makes
// a model call past the cap.
const stateSchema = new StateSchema({
  stop_hook_continuations: z.number().default(0),
  run_model_calls: z.number().default(0),
  run_turn_cap: z.number().nullable().default(null),
  stop_reason: STOP_REASON_VALUE,
});

type StopState = { stop_hook_continuations?: number; run_model_calls?: number; run_turn_cap?: number | null };

/** Claude Code's Stop / SubagentStop input, with deerflow's thread id and the answer the agent would end on. */
function stopInput(event: "Stop" | "SubagentStop", state: StopState, last: AIMessage, configurable: Record<string, unknown> | undefined) {
  const threadId = typeof configurable?.thread_id === "string" ? configurable.thread_id : undefined;
  return {
    session_id: threadId,
    thread_id: threadId,
    stop_hook_active: (state.stop_hook_continuations ?? 0) > 0,
    last_assistant_message: messageText(last),
    ...(event === "SubagentStop" ? { agent_type: readRunConfigurable(configurable).subagent ?? "" } : {}),
  };
}

/** Why a block would not be followed now (the turn cap reached, or the bound of continuations), or undefined. */
function whyNotFollowed(event: "Stop" | "SubagentStop", state: StopState): string | undefined {
  const cap = state.run_turn_cap;
  if (typeof cap === "number" && (state.run_model_calls ?? 0) >= cap) return `not followed: the run made its ${cap} model calls (its turn limit)`;
  if ((state.stop_hook_continuations ?? 0) >= MAX_STOP_CONTINUATIONS) return `not followed: the agent already went on ${MAX_STOP_CONTINUATIONS} times for ${event} hooks in this run`;
  return undefined;
}

export function stopHooksMiddleware(setup: HookSetup, event: "Stop" | "SubagentStop") {
  return createMiddleware({
    name: event === "Stop" ? "StopHooks" : "SubagentStopHooks",
    stateSchema,
    beforeAgent: () => ({ stop_hook_continuations: 0 }),
    afterModel: {
      canJumpTo: ["model"],
      hook: async (state, runtime) => {
        const last = state.messages.at(-1);
        if (!last || !AIMessage.isInstance(last) || (last.tool_calls?.length ?? 0) > 0 || state.stop_reason != null) return undefined;
        if (!hooksFor(setup, event).length) return undefined;
        const { configurable, signal } = runtime as { configurable?: Record<string, unknown>; signal?: AbortSignal };
        const blockNote = whyNotFollowed(event, state);
        const r = await runHooks(setup, event, stopInput(event, state, last, configurable), { signal, blockNote });
        if (!r.blocked || blockNote) return undefined;
        const note = new HumanMessage({
          content: `[${event} hook] The user's hook did not let you stop yet: ${r.blocked.reason}`,
          additional_kwargs: { [HIDDEN_MARKER]: STOP_HOOK_KIND },
        });
        return { stop_hook_continuations: (state.stop_hook_continuations ?? 0) + 1, messages: [note], jumpTo: "model" as const };
      },
    },
  });
}
