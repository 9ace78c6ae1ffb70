// The one line a hook's run is told by (text mode's stderr, the TUI's notice): only runs that blocked or failed are
// told; a hook that did its work quietly stays quiet (stream-json reports every run).
export function hookNotice(e: { event: string; command: string; tool?: string; status: "ok" | "blocked" | "error"; reason?: string }): string | undefined {
  if (e.status === "ok") return undefined;
  const what = `${e.event} hook${e.tool ? ` on ${e.tool}` : ""} (${e.command})`;
  return e.status === "blocked" ? `${what} blocked it: ${e.reason ?? "no reason given"}` : `${what} failed: ${e.reason ?? "no message"}; going on without it`;
}

/** The configured hooks, one line each (`deerflow doctor`, `/hooks`): event, matcher, command, timeout, file. */
export function hookLines(hooks: readonly { event: string; matcher: string; command: string; timeoutSeconds: number; file: string }[]): string[] {
  return hooks.map((h) => `${h.event}${h.matcher ? ` [${h.matcher}]` : ""}: ${h.command} (timeout ${h.timeoutSeconds} s; ${h.file})`);
}
