// `/memory` in the chat: list, add, edit, forget and clear the facts deerflow remembers, and review the ones it
// learned (pending, approve, reject: the same rules as `deerflow memory`), each answered as a notice.
import type { ChatSession, MemoryStore } from "../../runtime/chat-session.js";
import { formatErrorLine } from "../../errors.js";
import { pendingHere, pendingLine, reviewTargets } from "../../memory/review.js";
import type { SlashCommand } from "./types.js";

type Notice = (level: "info" | "warning" | "error", text: string) => void;

export function runMemoryCommand(s: ChatSession, args: string, notice: Notice): void {
  const store = s.memory;
  if (!store) {
    notice("info", "Memory is off (--no-memory or memory.enabled: false in .deerflowrc).");
    return;
  }
  const [verb = "list", ...rest] = args.split(/\s+/).filter(Boolean);
  const project = s.memoryProject();
  const said = (r: { status: string; reason?: string; fact?: { id: number; text: string } }, what: string) =>
    r.status === "refused" ? notice("warning", `Not remembered: ${r.reason}.`) : notice("info", `${what} #${r.fact!.id}: ${r.fact!.text}`);
  try {
    switch (verb) {
      case "list": {
        const facts = store.list({ project: project || undefined });
        const waiting = pendingHere(store, project).length;
        notice(
          "info",
          (facts.length
            ? `Remembered facts (shown to the model in new threads):\n${facts.map((f) => `#${f.id} (${f.scope}) ${f.text}`).join("\n")}\nForget with /memory forget <n>, change with /memory edit <n> <text>.`
            : "Nothing remembered yet. Facts are learned after each run; add one with /memory add <text>.") +
            (waiting ? `\n${waiting} learned fact${waiting === 1 ? "" : "s"} wait for your review: /memory pending` : ""),
        );
        return;
      }
      case "pending":
        return notice("info", pendingNotice(store, project));
      case "approve":
      case "reject": {
        const t = reviewTargets(store, rest, project);
        if ("problem" in t) return notice("warning", `${t.problem} Usage: /memory ${verb} <n…|all>`);
        if (verb === "reject") return notice("info", `Rejected ${store.reject(t.ids).length} learned fact(s).`);
        const r = store.approve(t.ids);
        for (const x of r.refused) notice("warning", `Not approved #${x.fact.id}: ${x.reason}; it was dropped.`);
        return notice("info", r.approved.length ? `Approved (shown in new threads):\n${r.approved.map(pendingLine).join("\n")}` : "Nothing was approved.");
      }
      case "add": {
        const toProject = rest[0] === "--project";
        const text = (toProject ? rest.slice(1) : rest).join(" ");
        if (toProject && !project) return notice("warning", "This thread has no project (start with -w <dir> in a repository); the fact was not added.");
        return said(store.add({ scope: toProject ? "project" : "global", project, text, sourceThread: s.threadId }), "Remembered");
      }
      case "edit": {
        const id = Number(rest[0]);
        if (!Number.isInteger(id) || rest.length < 2) return notice("info", "Usage: /memory edit <n> <new text>");
        return said(store.edit(id, rest.slice(1).join(" ")), "Changed");
      }
      case "forget": {
        const ids = rest.map(Number).filter((n) => Number.isInteger(n));
        if (ids.length === 0) return notice("info", "Usage: /memory forget <n> [n…] (numbers from /memory)");
        const n = store.forget(ids);
        return notice("info", n ? `Forgot ${n} fact${n === 1 ? "" : "s"}.` : "No such fact.");
      }
      case "clear": {
        const n = store.clear();
        return notice("info", `Forgot all ${n} remembered fact${n === 1 ? "" : "s"}.`);
      }
      default:
        notice("info", "Usage: /memory [add [--project] <text> | edit <n> <text> | forget <n…> | clear | pending | approve <n…|all> | reject <n…|all>]");
    }
  } catch (err) {
    notice("error", formatErrorLine(err));
  }
}

/** The learned facts waiting for review, or that nothing waits. */
function pendingNotice(store: MemoryStore, project: string): string {
  const facts = pendingHere(store, project);
  if (!facts.length) return "Nothing learned waits for your review.";
  return `Learned, waiting for your review (shown to no model until approved):\n${facts.map(pendingLine).join("\n")}\nApprove with /memory approve <n…|all>, drop with /memory reject <n…|all>.`;
}

export const memoryCommand: SlashCommand = {
  name: "memory",
  args: "[add|edit <n>|forget <n…>|clear|pending|approve <n…|all>|reject <n…|all>]",
  description: "show, add, edit or forget remembered facts; review learned ones",
  run: (ctx) => runMemoryCommand(ctx.session, ctx.args, (level, text) => ctx.notice(level, text)),
};
