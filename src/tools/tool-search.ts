// tool_search — finds deferred tools and promotes them into the model's tool list (docs/mcp.md, Deferred tools). A large catalogue
// (many MCP tools) is listed by name and one line only, so its schemas do not cost tokens on every call; the model
// asks for what it needs: `select:a,b` (exact names), a regular expression, or keywords; at most 5 results. The
// promotion goes to `promoted` as `{catalog_hash, names}`: without a turn_id it joins the turn the
// DeferredToolFilter opened, so the promoted tools stay in the tool list for the rest of this user turn.
import { createHash } from "node:crypto";
import { ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { tool } from "langchain";
import { z } from "zod";

export const TOOL_SEARCH_MAX_RESULTS = 5;

export interface DeferredToolEntry {
  name: string;
  /** One line, shown in the listing and in search results. */
  summary: string;
  /** The whole description (searched by keywords). */
  description: string;
}

/** The deferred part of the catalogue: what the filter hides until tool_search promotes it. */
export interface DeferredToolCatalog {
  /** Changes when the catalogue changes: promotions of another catalogue are dropped. */
  hash: string;
  entries: DeferredToolEntry[];
  names: ReadonlySet<string>;
}

export function deferredToolCatalog(entries: DeferredToolEntry[]): DeferredToolCatalog {
  const hash = createHash("sha256")
    .update(JSON.stringify(entries.map((e) => [e.name, e.description]).sort()))
    .digest("hex")
    .slice(0, 16);
  return { hash, entries, names: new Set(entries.map((e) => e.name)) };
}

/** The static listing appended to the system prompt (byte-identical on every turn while the catalogue stands). */
export function deferredListing(catalog: DeferredToolCatalog): string {
  // A server's text must not open or close tags of the harness (`</deferred-tools>`, `<system-reminder>`).
  const plain = (t: string) => t.replace(/</g, "‹").replace(/>/g, "›");
  const lines = catalog.entries.map((e) => `- ${e.name}${e.summary ? `: ${plain(e.summary)}` : ""}`);
  return [
    "<deferred-tools>",
    `These ${catalog.entries.length} tools exist but are not in your tool list yet. To use one, first call tool_search with`,
    `"select:<name>[,<name>…]" (or keywords, or a regular expression); it loads up to ${TOOL_SEARCH_MAX_RESULTS} tools, which you can call from`,
    "then on during this request.",
    ...lines,
    "</deferred-tools>",
  ].join("\n");
}

function isRegexQuery(q: string): boolean {
  return /[\\^$.*+?()[\]{}|]/.test(q);
}

/**
 * A model's regular expression runs on text from MCP servers: one with a quantified group that itself repeats
 * (`(a+)+`, `(.*)*`, `(x|xx){2,}`) or a back-reference can take exponential time on a hostile description, so it
 * is searched as keywords instead.
 */
function isSafeRegex(q: string): boolean {
  return !/\([^()]*[+*{][^()]*\)\s*[+*{?]/.test(q) && !/\\[1-9]/.test(q) && !/\([^()]*\|[^()]*\)\s*[+*{]/.test(q);
}

/** The best matches of a query, at most 5, best first. */
export function searchDeferred(catalog: DeferredToolCatalog, query: string): { matches: DeferredToolEntry[]; unknown: string[] } {
  const q = query.trim();
  const sel = /^select:(.*)$/is.exec(q);
  if (sel) {
    const wanted = sel[1]!
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const matches: DeferredToolEntry[] = [];
    const unknown: string[] = [];
    for (const w of wanted) {
      // A short name (the server's own tool name) is accepted when it is unambiguous.
      const hit = catalog.entries.find((e) => e.name === w) ?? singleOrUndefined(catalog.entries.filter((e) => e.name.endsWith(`__${w}`)));
      if (hit && !matches.includes(hit)) matches.push(hit);
      else if (!hit) unknown.push(w);
    }
    return { matches: matches.slice(0, TOOL_SEARCH_MAX_RESULTS), unknown };
  }
  if (isRegexQuery(q) && isSafeRegex(q)) {
    let re: RegExp | undefined;
    try {
      re = new RegExp(q.slice(0, 200), "i");
    } catch {
      re = undefined;
    }
    // Names and one-line summaries only: bounded input for a pattern from the model.
    if (re) return { matches: catalog.entries.filter((e) => re!.test(e.name) || re!.test(e.summary)).slice(0, TOOL_SEARCH_MAX_RESULTS), unknown: [] };
  }
  const words = q
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
  const scored = catalog.entries
    .map((e) => {
      const name = e.name.toLowerCase();
      const desc = e.description.toLowerCase();
      const score = words.reduce((s, w) => s + (name.includes(w) ? 3 : 0) + (desc.includes(w) ? 1 : 0), 0);
      return { e, score };
    })
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score);
  return { matches: scored.slice(0, TOOL_SEARCH_MAX_RESULTS).map((x) => x.e), unknown: [] };
}

function singleOrUndefined<T>(xs: T[]): T | undefined {
  return xs.length === 1 ? xs[0] : undefined;
}

export function createToolSearchTool(catalog: DeferredToolCatalog) {
  return tool(
    async ({ query }, runtime) => {
      const callId = (runtime as { toolCallId?: string } | undefined)?.toolCallId ?? "";
      const { matches, unknown } = searchDeferred(catalog, query);
      const missing = unknown.length > 0 ? `\nNot found: ${unknown.join(", ")}.` : "";
      if (matches.length === 0) {
        return `No deferred tool matches ${JSON.stringify(query.slice(0, 200))}.${missing} The deferred tools are listed in your instructions; use "select:<exact name>".`;
      }
      const text = `Loaded ${matches.length} tool${matches.length === 1 ? "" : "s"}; call ${matches.length === 1 ? "it" : "them"} directly now:\n${matches.map((m) => `- ${m.name}: ${m.summary}`).join("\n")}${missing}`;
      return new Command({
        update: {
          promoted: { catalog_hash: catalog.hash, names: matches.map((m) => m.name) },
          messages: [new ToolMessage({ tool_call_id: callId, name: "tool_search", content: text })],
        },
      });
    },
    {
      name: "tool_search",
      description: `Load deferred tools (listed in your instructions) into your tool list. Query: "select:name1,name2" for exact names, or keywords, or a regular expression; at most ${TOOL_SEARCH_MAX_RESULTS} tools per call.`,
      schema: z.object({ query: z.string().min(1).describe('"select:<name>[,<name>]", keywords, or a regular expression') }),
    },
  );
}
