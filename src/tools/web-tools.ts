// The web tools as the agent gets them: web_fetch always, web_search when a provider is configured (a tool that
// could only fail is not offered; `deerflow doctor` says how to add one) — and neither with the network off
// (`--no-network`, `sandbox.network: "off"`): they run in deerflow on the host, so the sandbox's cut does not reach
// them, and a model that read a secret could still send it out in a URL or a query.
import type { WebSearchSetup } from "../config/web-search.js";
import { type WebFetchToolOptions, createWebFetchTool } from "./web-fetch.js";
import { createWebSearchTool } from "./web-search.js";

export interface WebToolsOptions {
  fetch?: WebFetchToolOptions;
  search?: WebSearchSetup;
  /** The network is off for this run: no web tool is offered, and the lead's system prompt says why. */
  networkOff?: boolean;
}

export const WEB_TOOL_NAMES = ["web_fetch", "web_search"] as const;

export function webTools(options: WebToolsOptions = {}) {
  if (options.networkOff) return [];
  const fetchTool = createWebFetchTool(options.fetch);
  return options.search ? [fetchTool, createWebSearchTool(options.search)] : [fetchTool];
}
