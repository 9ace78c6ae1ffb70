// Where the input's menus get their rows: the built-in commands, the installed skills and the custom commands for `/`, the workspace's
// path index (runtime/workspace-path-index.ts: listed in the background, searched in memory) for `@`.
import type { ChatSession } from "../runtime/chat-session.js";
import { SLASH_COMMANDS } from "./commands/slash-commands.js";
import { customCommandSpecs } from "./commands/custom-commands.js";
import { type CommandSpec, type CompletionContext, type CompletionList, commandItems, pathItems } from "./input/completion.js";

export class CompletionSource {
  private readonly listeners = new Set<() => void>();
  private watched = false;

  constructor(private readonly session: () => ChatSession | undefined) {}

  /** Told when the rows may have changed without a keystroke (the path index finished listing). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts listing the workspace (once the session is loaded), so the first `@` finds it done. */
  warm(): void {
    const s = this.session();
    if (!s) return;
    const index = s.pathIndex();
    if (this.watched) return;
    this.watched = true;
    index.onChange(() => {
      for (const l of this.listeners) l();
    });
  }

  /** After a run: the agent may have added files. */
  refresh(): void {
    if (this.watched) void this.session()?.pathIndex().refresh();
  }

  rows(ctx: CompletionContext, limit: number): CompletionList {
    const s = this.session();
    if (ctx.kind === "slash") {
      // Built-ins win a name clash (as when the command runs); skills after them.
      const skills: CommandSpec[] = (s?.skills.skills ?? [])
        .filter((k) => !SLASH_COMMANDS.some((c) => c.name === k.name))
        .map((k) => ({ name: k.name, args: "[request]", description: `skill: ${k.description}` }));
      const items = commandItems([...SLASH_COMMANDS, ...skills, ...customCommandSpecs(s)], ctx.query, limit);
      return items.length ? { items } : { items, note: `No command matches /${ctx.query} (enter sends it as typed)` };
    }
    if (!s) return { items: [], note: "Starting…" };
    this.warm();
    const index = s.pathIndex();
    const st = index.state;
    if (st.status === "refused") return { items: [], note: st.reason };
    if (st.status === "failed") return { items: [], note: "Could not list the workspace's files." };
    if (st.status !== "ready") return { items: [], note: "Indexing the workspace's files…" };
    const items = pathItems(index.search(ctx.query, limit));
    return items.length ? { items } : { items, note: `No file matches @${ctx.query}` };
  }
}
