// The shape of one slash command (`/name args`): its metadata (the `/` menu and /help read it) and what it does.
// Each command lives in its own `*-command.ts` file; slash-commands.ts is the registry that lists them in order.
import type { ChatSession, ThreadView } from "../../runtime/chat-session.js";
import type { ChatStore } from "../store.js";

export type NoticeLevel = "info" | "warning" | "error";

/** What a command may do: the controller's powers, no more (the session, the screen's store, and a few actions). */
export interface SlashContext {
  session: ChatSession;
  store: ChatStore;
  /** The text after the command's name, trimmed ("" when none). */
  args: string;
  notice(level: NoticeLevel, text: string): void;
  /** Runs `fn` now, or, while a request works, refuses with one warning naming `what` (the input keeps the text). */
  whileIdle(what: string, fn: () => void): void;
  /** `whileIdle` for a short piece of work that shows the spinner and reports its failure as one line. */
  idleTask(what: string, work: () => Promise<void>): void;
  /** Draws a thread the session just switched to (`verb`: "Resumed", "Rewound", …). */
  showThread(view: ThreadView, verb: string): void;
  /** Sends a turn (with `goal`: a goal turn). */
  submitTurn(prompt: string, goal?: string): void;
  /** `/model <name>` or a pick in the picker. */
  useModel(name: string): void;
  exit(): void;
  /** /help's rows: every command (this registry's), then `!` and `@`. */
  helpRows(): { keys: string; description: string }[];
  /** Whether `name` is a built-in command (a skill of that name is shadowed). */
  isBuiltIn(name: string): boolean;
}

export interface SlashCommand {
  name: string;
  /** How the arguments read in the menu and /help (`<id>`, `[text|clear]`). */
  args?: string;
  description: string;
  run(ctx: SlashContext): void;
}
