// Drawing a saved thread on the screen (start-up resume, /resume, /rewind) and the status line's goal view.
import type { ChatSession, ThreadView } from "../runtime/chat-session.js";
import type { GoalSummary } from "../runtime/run-goal.js";
import type { GoalView } from "./state/types.js";
import type { ChatStore } from "./store.js";
import { itemsOfThread, recentTurns } from "./thread-transcript.js";

/** The status line's goal: a finished goal run's outcome, else the thread's active goal. */
export function goalViewOf(summary: GoalSummary | undefined, active: { objective: string; continuation_count: number } | null): GoalView | null {
  if (summary && summary.outcome !== "not_achieved" && summary.outcome !== "needs_user_input") {
    return { objective: summary.objective, status: "achieved", continuation_count: summary.continuation_count };
  }
  if (summary) return { objective: summary.objective, status: summary.outcome, continuation_count: summary.continuation_count };
  return active ? { objective: active.objective, status: "active", continuation_count: active.continuation_count } : null;
}

/** Draws a thread the session switched to (resume, rewind, undo): its recent turns, panels and status line. */
export function showThread(store: ChatStore, session: ChatSession | undefined, view: ThreadView, verb: string): void {
  const t = view.thread;
  store.dispatch({ type: "ui.notice", level: "info", text: `${verb} thread ${t.id}${t.title ? ` · ${t.title}` : ""} (${t.status}, ${view.entries.length} entries)` });
  // A pending question is shown by its prompt, not twice.
  const entries = view.clarification && view.entries.at(-1)?.kind === "clarification" ? view.entries.slice(0, -1) : view.entries;
  const shown = recentTurns(entries);
  if (shown.length < entries.length) {
    store.dispatch({ type: "ui.notice", level: "info", text: `${entries.length - shown.length} earlier entries not drawn; \`deerflow threads show ${t.id}\` prints them all.` });
  }
  store.dispatch({ type: "ui.items", items: itemsOfThread(shown) });
  if (view.delegations.length > 0) store.dispatch({ type: "ui.item", item: { kind: "delegations", delegations: view.delegations } });
  store.dispatch({
    type: "ui.thread",
    clarification: view.clarification,
    todos: view.todos,
    notes: view.notes,
    status: {
      context: view.context_tokens > 0 ? { tokens: view.context_tokens, estimated: view.context_estimated } : undefined,
      threadId: t.id,
      title: t.title ?? undefined,
      usage: view.usage,
      goal: view.goal
        ? goalViewOf(undefined, view.goal)
        : view.goal_outcome
          ? { objective: view.goal_outcome.objective, status: "achieved", continuation_count: view.goal_outcome.continuation_count }
          : null,
    },
  });
  if (view.goal) store.dispatch({ type: "ui.notice", level: "info", text: `Active goal: ${view.goal.objective}` });
  const away = session?.workspaceNotice();
  if (away) store.dispatch({ type: "ui.notice", level: "info", text: away });
  if (session) store.dispatch({ type: "ui.status", status: { workspace: session.workspaceLabel() } });
}
