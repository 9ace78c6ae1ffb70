// ToolErrorHandling — WHY wrapToolCall: a tool that throws (a bug, a missing file, arguments the model got wrong
// and the tool's zod schema rejects) must not end the run; the model gets an error ToolMessage it can react to.
// WHY its position (after DanglingToolCall and Guardrail, before everything that registers or wraps tools): the
// first middleware is the outermost wrapper, so sitting early it catches what the tool AND every inner wrapper
// throws, while Guardrail (outer) still decides first and reports its own denials.
// Never swallowed: cancellation (the run's signal is aborted, or an AbortError) and LangGraph's control-flow
// errors (GraphInterrupt / GraphBubbleUp) — those must reach the graph unchanged.
import { ToolMessage } from "@langchain/core/messages";
import { ToolInputParsingException } from "@langchain/core/tools";
import { isGraphBubbleUp } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { errorChain, isAbortError, unwrapMiddlewareError } from "../vocabulary/error-chain.js";
import { SandboxPathError } from "../sandbox/paths.js";
import { permissionDenial } from "../sandbox/permission-denial.js";

export const TOOL_ERROR_DETAIL_MAX = 500;

export interface ToolErrorHandlingOptions {
  /** Longest error detail shown to the model (default 500 characters). */
  maxDetailChars?: number;
}

/** A short, stable name for the kind of failure: the error's class or name, "ValidationError" for bad arguments. */
export function errorKind(err: unknown): string {
  if (err instanceof ToolInputParsingException) return "ValidationError";
  if (err instanceof Error) {
    const ctor = err.constructor?.name;
    if (err.name && err.name !== "Error") return err.name;
    if (ctor && ctor !== "Error") return ctor;
    return "Error";
  }
  return "Error";
}

/** One line, whitespace collapsed, at most `max` characters (an ellipsis marks a cut). */
export function errorDetail(err: unknown, max = TOOL_ERROR_DETAIL_MAX): string {
  let text: string;
  if (err instanceof Error) text = err.message || err.name;
  else if (typeof err === "string") text = err;
  else {
    try {
      text = JSON.stringify(err) ?? String(err);
    } catch {
      text = String(err);
    }
  }
  text =
    text
      .replace(/\s+/g, " ")
      .trim()
      .replace(/[.\s]+$/, "") || "no details";
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** "Error: Tool 'X' failed with Kind: detail. Continue with available context, or choose an alternative tool." */
export function formatToolError(toolName: string, err: unknown, maxDetailChars = TOOL_ERROR_DETAIL_MAX): string {
  return `Error: Tool '${toolName}' failed with ${errorKind(err)}: ${errorDetail(err, maxDetailChars)}. Continue with available context, or choose an alternative tool.`;
}

export function toolErrorHandlingMiddleware(options: ToolErrorHandlingOptions = {}) {
  const max = options.maxDetailChars ?? TOOL_ERROR_DETAIL_MAX;
  return createMiddleware({
    name: "ToolErrorHandling",
    wrapToolCall: async (request, handler) => {
      try {
        return await handler(request);
      } catch (err) {
        // Rethrow the caught object itself: LangChain recognises it as a downstream error and does not re-wrap it.
        if (request.runtime.signal?.aborted || isAbortError(err)) throw err;
        if (errorChain(err).some((e) => isGraphBubbleUp(e))) throw err;
        const { toolCall } = request;
        const cause = unwrapMiddlewareError(err);
        // The sandbox refusing a path outside the thread's directories is a policy denial, listed with the others.
        const confined = errorChain(cause).find((e): e is SandboxPathError => e instanceof SandboxPathError && e.kind === "refused");
        const denial = confined
          ? permissionDenial({ tool: toolCall.name, toolCallId: toolCall.id, summary: JSON.stringify(toolCall.args ?? {}), reason: errorDetail(confined), deniedBy: "policy" })
          : undefined;
        return new ToolMessage({
          tool_call_id: toolCall.id ?? "",
          name: toolCall.name,
          status: "error",
          content: formatToolError(toolCall.name, cause, max),
          ...(denial ? { artifact: { denial } } : {}),
        });
      }
    },
  });
}
