// `/rewind`: the runs to go back over; `/rewind <n> [files|conversation]`: back to before the nth latest;
// `/rewind undo`: put the last rewind back.
import type { RewindScope } from "../../runtime/chat-session.js";
import { rewindText, runLine, undoText } from "../../vocabulary/rewind-text.js";
import type { SlashCommand, SlashContext } from "./types.js";

async function rewind(ctx: SlashContext): Promise<void> {
  const { args, session: s } = ctx;
  if (/^undo$/i.test(args)) {
    const { outcome, view } = await s.undoRewind();
    if (outcome.conversation) {
      ctx.store.dispatch({ type: "ui.clear" });
      ctx.showThread(view, "Restored");
    }
    ctx.notice("info", undoText(outcome).trim());
    return;
  }
  const m = /^(\d+)(?:\s+(files|conversation|both))?$/i.exec(args);
  if (args && !m) {
    ctx.notice("info", "Usage: /rewind (list the runs), /rewind <n> [files|conversation] (back to before the nth latest run), /rewind undo (put the last rewind back)");
    return;
  }
  if (!m) {
    const runs = await s.rewindable();
    if (runs.length === 0) ctx.notice("info", "This thread has no runs to rewind.");
    else
      ctx.notice(
        "info",
        `Runs of this thread, latest first:\n${runs.map(runLine).join("\n")}\nRewind with /rewind <n> (files and conversation), /rewind <n> files, or /rewind <n> conversation; /rewind undo puts the last rewind back.`,
      );
    return;
  }
  const scope = (m[2]?.toLowerCase() ?? "both") as RewindScope;
  const { outcome, view } = await s.rewind(Number(m[1]), scope);
  if (outcome.conversation) {
    ctx.store.dispatch({ type: "ui.clear" });
    ctx.showThread(view, "Rewound");
  }
  ctx.notice("info", rewindText(outcome, "/rewind undo").trim());
  if (outcome.files_note) ctx.notice("warning", outcome.files_note);
}

export const rewindCommand: SlashCommand = {
  name: "rewind",
  args: "[n] [files|conversation] | undo",
  description: "list this thread's runs; with n: back to before the nth latest (files and conversation, or one of them); undo: put the last rewind back",
  run: (ctx) => ctx.idleTask("rewinding", () => rewind(ctx)),
};
