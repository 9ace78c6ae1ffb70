// The web tools as the agent gets them: web_fetch always, web_search when a provider is configured (a tool that
// could only fail is not offered; `deerflow doctor` says how to add one).
import type { WebSearchSetup } from "../config/web-search.js";
import { type WebFetchToolOptions, createWebFetchTool } from "./web-fetch.js";
import { createWebSearchTool } from "./web-search.js";

export interface WebToolsOptions {
  fetch?: WebFetchToolOptions;
  search?: WebSearchSetup;
}

export const WEB_TOOL_NAMES = ["web_fetch", "web_search"] as const;

export function webTools(options: WebToolsOptions = {}) {
  const fetchTool = createWebFetchTool(options.fetch);
  return options.search ? [fetchTool, createWebSearchTool(options.search)] : [fetchTool];
}
