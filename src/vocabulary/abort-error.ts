// The one way a cancelled operation says so: an Error named "AbortError" (what fetch, execa and LangGraph throw and
// what callers test for), carrying the signal's reason as its cause.

/** The signal's own AbortError, or one with `fallback` as its message (the reason's message when it is an Error). */
export function abortErrorFrom(signal: AbortSignal | undefined, fallback = "The operation was cancelled"): Error {
  const reason = signal?.reason;
  if (reason instanceof Error && reason.name === "AbortError") return reason;
  return Object.assign(new Error(reason instanceof Error ? reason.message : fallback), { name: "AbortError", cause: reason });
}
