// A SlashContext for one command's test: a real ChatStore (the screen's state), the controller's actions recorded.
// `busy` plays a request in flight: whileIdle/idleTask refuse as the controller does. Commands that reach the
// session get one (the controller tests use a real ChatSession); the ones here that do not get none.
import type { ChatSession } from "../../../src/runtime/chat-session.js";
import { findSlash, helpCommands } from "../../../src/tui/commands/slash-commands.js";
import type { SlashContext } from "../../../src/tui/commands/types.js";
import { ChatStore } from "../../../src/tui/store.js";

export interface Recorded {
  ctx: SlashContext;
  store: ChatStore;
  notices: [string, string][];
  refused: string[];
  tasks: Promise<void>[];
  turns: [string, string | undefined][];
  exits: number;
}

export function slashContext(args: string, opts: { busy?: boolean; session?: ChatSession; store?: ChatStore } = {}): Recorded {
  const store = opts.store ?? new ChatStore();
  const r: Recorded = { ctx: undefined as never, store, notices: [], refused: [], tasks: [], turns: [], exits: 0 };
  const whileIdle = (what: string, fn: () => void) => (opts.busy ? void r.refused.push(what) : fn());
  r.ctx = {
    session: opts.session ?? (undefined as never),
    store,
    args,
    notice: (level, text) => void r.notices.push([level, text]),
    whileIdle,
    idleTask: (what, work) => whileIdle(what, () => void r.tasks.push(work())),
    showThread: () => {},
    submitTurn: (prompt, goal) => void r.turns.push([prompt, goal]),
    useModel: () => {},
    exit: () => void r.exits++,
    helpRows: helpCommands,
    isBuiltIn: (n) => findSlash(n) !== undefined,
  };
  return r;
}
