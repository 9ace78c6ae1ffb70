// Notification hooks (.deerflowrc `hooks`, Claude Code's event): deerflow waits for a person — an approval question
// (`notification_type: "permission_prompt"`, as Claude Code says it) or a clarification question the run ends on
// (`"clarification"`, deerflow's own) — and the user's hook hears of it, e.g. to ring a bell or send a desktop
// notification. WHY in the background: the question is already on screen; a slow hook must not hold it back.
// Their output is only logged (a `hook.run` report); they cannot answer or block anything. Only where a person is
// asked (the chat, an editor over ACP): headless runs ask nobody.
import { hookSetupOf } from "./hook-setup.js";
import type { ResolvedConfig } from "../config/load.js";
import { hooksFor, runHooks } from "../hooks/run-hooks.js";
import type { RunEvent, RunEventListener } from "./events.js";

export interface NotificationHooks {
  /** Sees every event of a run (and every approval request); runs the hooks on the ones that wait for a person. */
  watch(e: RunEvent, emit: RunEventListener | undefined): void;
  /** Resolves when the hooks started so far have ended (tests; a chat never waits for them). */
  settled(): Promise<void>;
}

function messageOf(e: RunEvent): { message: string; type: string } | undefined {
  if (e.type === "approval.requested") return { message: `deerflow needs your permission to use ${e.tool}: ${e.command}`, type: "permission_prompt" };
  if (e.type === "clarification.requested") return { message: `deerflow asks: ${e.clarification.question}`, type: "clarification" };
  return undefined;
}

export function notificationHooks(config: ResolvedConfig): NotificationHooks {
  let runId = "";
  let threadId: string | undefined;
  const running = new Set<Promise<unknown>>();
  return {
    watch(e, emit) {
      if (e.type === "run.started") [runId, threadId] = [e.run_id, e.thread_id];
      const what = messageOf(e);
      const setup = what ? hookSetupOf(config, (r) => emit?.({ type: "hook.run", run_id: runId, ...r })) : undefined;
      if (!what || !setup || !hooksFor(setup, "Notification").length) return;
      const id = e.type === "approval.requested" ? e.thread_id : threadId;
      const p = runHooks(setup, "Notification", { session_id: id, thread_id: id, message: what.message, notification_type: what.type }).catch(() => {});
      running.add(p);
      void p.finally(() => running.delete(p));
    },
    settled: async () => {
      await Promise.all([...running]);
    },
  };
}
