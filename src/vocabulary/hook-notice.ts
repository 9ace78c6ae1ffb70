// The one line a hook's run is told by (text mode's stderr, the TUI's notice): only runs that blocked or failed are
// told; a hook that did its work quietly stays quiet (stream-json reports every run).
export function hookNotice(e: { event: string; command: string; tool?: string; status: "ok" | "blocked" | "error"; reason?: string }): string | undefined {
  if (e.status === "ok") return undefined;
  const what = `${e.event} hook${e.tool ? ` on ${e.tool}` : ""} (${e.command})`;
  if (e.status === "error") return `${what} failed: ${e.reason ?? "no message"}; going on without it`;
  // A Stop hook's block does not stop anything: it sends the agent back to work (or, past the bound, is not followed).
  if (e.event === "Stop" || e.event === "SubagentStop") return `${what} did not let the agent stop: ${e.reason ?? "no reason given"}`;
  // A PreCompact or Notification hook cannot block: its exit 2 is only said.
  if (e.event === "PreCompact" || e.event === "Notification") return `${what} exited 2 (it cannot block): ${e.reason ?? "no message"}`;
  return `${what} blocked it: ${e.reason ?? "no reason given"}`;
}

/** The configured hooks, one line each (`deerflow doctor`, `/hooks`): event, matcher, command, timeout, file. */
export function hookLines(hooks: readonly { event: string; matcher: string; command: string; timeoutSeconds: number; file: string }[]): string[] {
  return hooks.map((h) => `${h.event}${h.matcher ? ` [${h.matcher}]` : ""}: ${h.command} (timeout ${h.timeoutSeconds} s; ${h.file})`);
}
