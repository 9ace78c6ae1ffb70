// Walking an error's causes. LangChain wraps every error thrown out of a wrapModelCall / wrapToolCall hook in a
// `MiddlewareError` (original on `.cause`, one layer per middleware), a tool's input-parsing failure arrives as a
// `ToolInvocationError` (original on `.toolError`), and SDK errors carry their root cause on `.cause`
// (APIConnectionError → TypeError "fetch failed" → Error ECONNREFUSED). One walk for every reader.

/** Deep enough for one wrapper per middleware of the stack plus the SDK's own causes. */
const MAX_DEPTH = 64;

function isBranded(err: unknown, brand: string): boolean {
  return typeof err === "object" && err !== null && (err as { "~brand"?: unknown })["~brand"] === brand;
}

/** True for LangChain's `MiddlewareError` wrapper (checked by brand, so duplicate package copies agree). */
export function isMiddlewareError(err: unknown): boolean {
  return isBranded(err, "MiddlewareError");
}

/** True for LangChain's `ToolInvocationError` (a tool's input failed its schema). */
export function isToolInvocationError(err: unknown): err is Error & { toolError: unknown } {
  return isBranded(err, "ToolInvocationError");
}

/**
 * The error a middleware wrapper hid: strips `MiddlewareError` layers (and a `ToolInvocationError`) and returns
 * the first real error.
 */
export function unwrapMiddlewareError(err: unknown): unknown {
  let cur = err;
  for (let i = 0; i < MAX_DEPTH; i++) {
    if (isMiddlewareError(cur) && (cur as { cause?: unknown }).cause !== undefined) cur = (cur as { cause: unknown }).cause;
    else if (isToolInvocationError(cur)) cur = cur.toolError;
    else break;
  }
  return cur;
}

/** The error and everything it was caused by, outermost first (cycles and depth bounded). */
export function errorChain(err: unknown): unknown[] {
  const out: unknown[] = [];
  const seen = new Set<unknown>();
  let cur: unknown = err;
  while (cur !== undefined && cur !== null && !seen.has(cur) && out.length < MAX_DEPTH) {
    out.push(cur);
    seen.add(cur);
    if (typeof cur !== "object") break;
    cur = isToolInvocationError(cur) ? cur.toolError : (cur as { cause?: unknown }).cause;
  }
  return out;
}

/** The first error in the chain that satisfies `test`. */
export function findInChain<T>(err: unknown, test: (e: unknown) => e is T): T | undefined;
export function findInChain(err: unknown, test: (e: unknown) => boolean): unknown;
export function findInChain(err: unknown, test: (e: unknown) => boolean): unknown {
  return errorChain(err).find(test);
}

/** A user/caller cancellation: DOMException/Error named AbortError, LangChain's ModelAbortError, or OpenAI's APIUserAbortError. */
export function isAbortError(err: unknown): boolean {
  return errorChain(err).some((e) => {
    if (typeof e !== "object" || e === null) return false;
    const name = (e as { name?: unknown }).name;
    const ctor = (e as { constructor?: { name?: unknown } }).constructor?.name;
    return name === "AbortError" || name === "ModelAbortError" || ctor === "APIUserAbortError" || ctor === "AbortError";
  });
}
