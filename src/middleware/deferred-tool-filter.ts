// DeferredToolFilter — keeps deferred tools (a large MCP catalogue) out of the model's tool list until tool_search
// promotes them (docs/mcp.md, Deferred tools; DeerFlow's DeferredToolFilterMiddleware).
// WHY beforeAgent: each user turn opens a new promotion scope — `promoted` gets `{catalog_hash, names: [], turn_id}`
//   (the run id), and tool_search's writes without a turn_id join it (the reducer's scoping rule).
// WHY wrapModelCall: it changes only the request's tool list, never the system prompt or the messages, so the
//   system prompt stays byte-identical across turns (the provider's prefix cache) and nothing is stored.
// WHY wrapToolCall: a model that calls a tool it was never given (it read the name in the listing) is answered
//   "call tool_search first" instead of running it; the ToolNode knows every tool, so without this it would run.
// Position: inside ToolErrorHandling and before the MCP approval, so a refused call never asks the user.
import { randomBytes } from "node:crypto";
import { ToolMessage } from "@langchain/core/messages";
import { StateSchema } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { THREAD_STATE_VALUES } from "../state/thread-state.js";
import type { Promoted } from "../state/types.js";
import type { DeferredToolCatalog } from "../tools/tool-search.js";
import { readRunConfigurable } from "../vocabulary/configurable.js";

const stateSchema = new StateSchema({ promoted: THREAD_STATE_VALUES.promoted });

function promotedNames(state: unknown, catalog: DeferredToolCatalog): Set<string> {
  const p = (state as { promoted?: Promoted | null }).promoted;
  if (!p || p.catalog_hash !== catalog.hash || !Array.isArray(p.names)) return new Set();
  return new Set(p.names);
}

export function notPromotedMessage(name: string): string {
  return `Error: ${name} is a deferred tool and is not loaded: call tool_search first (query "select:${name}"), then call it.`;
}

export function deferredToolFilterMiddleware(catalog: DeferredToolCatalog) {
  return createMiddleware({
    name: "DeferredToolFilter",
    stateSchema,
    beforeAgent: (_state, runtime) => {
      const turn = readRunConfigurable(runtime.configurable as Record<string, unknown> | undefined).runId ?? `turn-${randomBytes(6).toString("hex")}`;
      return { promoted: { catalog_hash: catalog.hash, names: [], turn_id: turn } };
    },
    wrapModelCall: async (request, handler) => {
      const promoted = promotedNames(request.state, catalog);
      const tools = request.tools.filter((t) => {
        const name = (t as { name?: unknown }).name;
        return typeof name !== "string" || !catalog.names.has(name) || promoted.has(name);
      });
      return handler({ ...request, tools });
    },
    wrapToolCall: async (request, handler) => {
      const { toolCall } = request;
      if (!catalog.names.has(toolCall.name) || promotedNames(request.state, catalog).has(toolCall.name)) return handler(request);
      return new ToolMessage({ tool_call_id: toolCall.id ?? "", name: toolCall.name, status: "error", content: notPromotedMessage(toolCall.name) });
    },
  });
}
