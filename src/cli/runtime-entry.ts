// What the runtime bundle exports (scripts/bundle-runtime.mjs → dist/runtime-bundle/runtime.cjs): the chat's session
// and every command that loads the runtime. One bundle, so `run`, `threads`, `eval`… start from one file compiled
// through V8's code cache (load-runtime.ts) instead of ~1,500 ES modules, and each process has one copy of the
// runtime's stores and sandbox. `chat` and `--version`/`--help` stay outside: they load this only when they need it;
// `config`, `trust` and `memory` never do (cli/main.ts).
// WHY each command is imported at its first call: loading the bundle runs the top-level code of every module this file
// imports statically (zod schemas, SDK tables, constants), and a `run` needs none of `acp`'s, `eval`'s, `doctor`'s or
// the chat session's. Behind import() the bundler keeps each module's body in the file but runs it only when asked.
import type * as ChatSessionModule from "../runtime/chat-session.js";

type Lazy<F> = F extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<R> : never;

/** A command of the runtime, imported on its first call. */
function lazy<M, K extends keyof M>(load: () => Promise<M>, name: K): Lazy<M[K]> {
  return (async (...args: unknown[]) => ((await load())[name] as (...a: unknown[]) => Promise<unknown>)(...args)) as Lazy<M[K]>;
}

/** The chat's session (its functions are synchronous, so the chat awaits the module once, then calls them). */
export const chatSession = (): Promise<typeof ChatSessionModule> => import("../runtime/chat-session.js");
export const runCommand = lazy(() => import("./commands/run.js"), "runCommand");
export const threadsCommand = lazy(() => import("./commands/threads.js"), "threadsCommand");
export const threadsShowCommand = lazy(() => import("./commands/threads.js"), "threadsShowCommand");
export const threadsRmCommand = lazy(() => import("./commands/threads-rm.js"), "threadsRmCommand");
export const threadsExportCommand = lazy(() => import("./commands/threads-export.js"), "threadsExportCommand");
export const rewindCommand = lazy(() => import("./commands/rewind.js"), "rewindCommand");
export const mcpListCommand = lazy(() => import("./commands/mcp.js"), "mcpListCommand");
export const dbMigrateCommand = lazy(() => import("./commands/db.js"), "dbMigrateCommand");
export const evalCommand = lazy(() => import("./commands/eval.js"), "evalCommand");
export const doctorCommand = lazy(() => import("./commands/doctor.js"), "doctorCommand");
export const acpCommand = lazy(() => import("./commands/acp.js"), "acpCommand");
