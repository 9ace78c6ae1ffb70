// What counts as a middleware: anything made by createMiddleware (branded), or an object with a name and at least
// one hook or tools, the shape createAgent accepts.
import { type AgentMiddleware, MIDDLEWARE_BRAND } from "langchain";

const HOOKS = ["beforeAgent", "beforeModel", "wrapModelCall", "afterModel", "wrapToolCall", "afterAgent"] as const;

export function isMiddleware(x: unknown): x is AgentMiddleware {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return false;
  const o = x as Record<PropertyKey, unknown>;
  if (o[MIDDLEWARE_BRAND] === true) return true;
  return typeof o.name === "string" && (HOOKS.some((h) => typeof o[h] === "function" || typeof o[h] === "object") || "tools" in o);
}
