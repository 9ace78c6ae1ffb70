// TurnLimit (`--max-turns`) — WHY afterModel: the N-th model call of a run is the last one; if it still asks for
// tools, its calls are stripped (replaced by id, with a note) so nothing runs after the cap, and `stop_reason`
// becomes turn_capped; an AI message without tool calls ends the run normally (no jumpTo, which would skip the
// afterAgent hooks). WHY beforeAgent: the count is per run. WHY its position (next to TokenBudget, after
// LoopDetection): after* hooks run in reverse, so the stripped calls never reach LoopDetection's count.
import { AIMessage } from "@langchain/core/messages";
import { StateSchema } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { z } from "zod";
import { STOP_REASON_VALUE } from "./util/stop-reason.js";
import { TURN_CAPPED } from "../vocabulary/stop-reasons.js";
import { stripToolCalls } from "./util/strip-tool-calls.js";

// `run_turn_cap`: the cap itself, so what else may send a run back to the model (StopHooks) never passes it.
const stateSchema = new StateSchema({ run_model_calls: z.number().default(0), run_turn_cap: z.number().nullable().default(null), stop_reason: STOP_REASON_VALUE });

export function turnLimitMiddleware(options: { maxTurns: number }) {
  if (!Number.isInteger(options.maxTurns) || options.maxTurns < 1) throw new RangeError(`maxTurns must be a positive integer (got ${options.maxTurns})`);
  return createMiddleware({
    name: "TurnLimit",
    stateSchema,
    beforeAgent: () => ({ run_model_calls: 0, run_turn_cap: options.maxTurns }),
    afterModel: (state) => {
      const calls = (state.run_model_calls ?? 0) + 1;
      const last = state.messages.at(-1);
      if (calls < options.maxTurns || !last || !AIMessage.isInstance(last) || (last.tool_calls?.length ?? 0) === 0) {
        return { run_model_calls: calls };
      }
      const note = `[TURN LIMIT REACHED] This run may make at most ${options.maxTurns} model calls; the tool calls above were not run.`;
      return { run_model_calls: calls, stop_reason: TURN_CAPPED, messages: [stripToolCalls(last, note)] };
    },
  });
}
