// `/threads`: the saved threads (the latest 30), the current one marked.
import { formatErrorLine } from "../../errors.js";
import type { SlashCommand } from "./types.js";

export const threadsCommand: SlashCommand = {
  name: "threads",
  description: "list saved threads",
  run: (ctx) => {
    const s = ctx.session;
    void s
      .listThreads()
      .then((threads) => ctx.store.dispatch({ type: "ui.item", item: { kind: "threads", threads: threads.slice(0, 30), current: s.threadId } }))
      .catch((err: unknown) => ctx.notice("error", formatErrorLine(err)));
  },
};
