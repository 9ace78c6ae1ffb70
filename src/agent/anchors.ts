// Stable anchors for extra middleware (DeerFlow's @Next(X) / @Prev(X)): an extra says "put me right after X"
// or "right before X" by middleware name, so it keeps its place when features around it are toggled.
import type { AgentMiddleware } from "langchain";
import { AnchorError } from "./errors.js";

const ANCHOR = Symbol.for("deerflow.middleware.anchor");

export interface Anchor {
  /** Place right after the middleware with this name. */
  next?: string;
  /** Place right before the middleware with this name. */
  before?: string;
}

type Anchored = AgentMiddleware & { [ANCHOR]?: Anchor };

/** A copy of `middleware` anchored right after `target` (the caller's object is not touched). */
export function nextTo<M extends AgentMiddleware>(target: string, middleware: M): M {
  const prev = (middleware as Anchored)[ANCHOR];
  return { ...middleware, [ANCHOR]: { ...prev, next: target } } as M;
}

/** A copy of `middleware` anchored right before `target`. */
export function before<M extends AgentMiddleware>(target: string, middleware: M): M {
  const prev = (middleware as Anchored)[ANCHOR];
  return { ...middleware, [ANCHOR]: { ...prev, before: target } } as M;
}

export function anchorOf(middleware: AgentMiddleware): Anchor | undefined {
  return (middleware as Anchored)[ANCHOR];
}

/**
 * Insert `extras` into `base` (which must not contain the terminal middleware): unanchored extras go at the end
 * in the given order, anchored ones next to their target, which may itself be an extra.
 */
export function placeExtras(base: AgentMiddleware[], extras: AgentMiddleware[], terminalName: string): AgentMiddleware[] {
  const out = [...base];
  const pending: { mw: AgentMiddleware; side: "next" | "before"; target: string }[] = [];
  const seen = new Map<string, string>(); // "next:X" → extra name, to catch two extras on one anchor

  for (const mw of extras) {
    const a = anchorOf(mw);
    if (!a || (a.next === undefined && a.before === undefined)) {
      out.push(mw);
      continue;
    }
    if (a.next !== undefined && a.before !== undefined) {
      throw new AnchorError("both_anchors", `Middleware "${mw.name}" is anchored both next to "${a.next}" and before "${a.before}"; give it one anchor.`);
    }
    const side = a.next !== undefined ? "next" : "before";
    // The terminal middleware (Clarification) always stays last: "next to it" means "just before it".
    const target = (a.next ?? a.before)!;
    const key = `${side}:${target}`;
    const other = seen.get(key);
    if (other !== undefined) {
      throw new AnchorError(
        "duplicate_anchor",
        `Middleware "${other}" and "${mw.name}" are both anchored ${side === "next" ? "next to" : "before"} "${target}", so their order is ambiguous; anchor one of them to the other.`,
      );
    }
    seen.set(key, mw.name);
    pending.push({ mw, side, target });
  }

  const indexOf = (name: string) => out.findIndex((m) => m.name === name);
  while (pending.length > 0) {
    let placed = 0;
    for (let i = 0; i < pending.length; i++) {
      const p = pending[i]!;
      if (p.target === terminalName) {
        out.push(p.mw);
      } else {
        const at = indexOf(p.target);
        if (at < 0) continue;
        out.splice(p.side === "next" ? at + 1 : at, 0, p.mw);
      }
      pending.splice(i--, 1);
      placed++;
    }
    if (placed > 0) continue;
    const pendingNames = new Set(pending.map((p) => p.mw.name));
    const unknown = pending.find((p) => !pendingNames.has(p.target));
    if (unknown) {
      throw new AnchorError(
        "unknown_anchor",
        `Middleware "${unknown.mw.name}" is anchored to "${unknown.target}", which is not in the stack. Available: ${[...out.map((m) => m.name), terminalName].join(", ")}.`,
      );
    }
    throw new AnchorError("anchor_cycle", `Extra middleware anchors form a cycle: ${pending.map((p) => `${p.mw.name} → ${p.target}`).join(", ")}. Anchor one of them to a built-in middleware.`);
  }
  return out;
}
