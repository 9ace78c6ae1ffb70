// `deerflow run "/name args"`: a custom command (commands/) expanded into the run's prompt, as the chat does it.
// A name the chat answers itself (a built-in) or a skill's is left alone, so a name means the same thing in both.
// Piped material stays after the expanded prompt. A command with `!` lines opens its thread first (they run in its
// workspace), and the run continues that thread.
import { mkdirSync } from "node:fs";
import { commandCatalogFor, commandInvocation } from "../commands/catalog.js";
import type { ResolvedConfig } from "../config/load.js";
import type { ThreadPaths } from "../sandbox/provider.js";
import { shellSettingsFromConfig } from "../sandbox/shell-settings.js";
import { skillCatalogFor, skillInvocation } from "../skills/catalog.js";
import { isBuiltInCommand } from "../vocabulary/built-in-commands.js";

export interface CommandTurn {
  prompt: string;
  /** The text whose `@path` words are attached. */
  attach: string;
  /** The thread a `!` line opened (the run continues it). */
  threadId?: string;
}

export async function commandTurn(
  typed: string,
  prompt: string,
  ctx: { config: ResolvedConfig; thread?: string; continueLatest?: boolean; workspace?: string; signal: AbortSignal; note: (line: string) => void },
): Promise<CommandTurn> {
  const name = /^\/(\S+)/.exec(typed)?.[1]?.toLowerCase();
  if (!name || isBuiltInCommand(name) || skillInvocation(typed, skillCatalogFor({ home: ctx.config.home, cwd: process.cwd() }))) return { prompt, attach: typed };
  const catalog = commandCatalogFor({ home: ctx.config.home, cwd: process.cwd() });
  let threadId: string | undefined;
  const paths = async (): Promise<ThreadPaths> => {
    const { ThreadRuntime } = await import("../runtime/thread-runtime.js");
    const { opened } = await ThreadRuntime.for(ctx.config).open({ threadId: ctx.thread, continueLatest: ctx.continueLatest, workspace: ctx.workspace });
    threadId = opened.threadId;
    // A new thread's own workspace is made by its first run; the `!` line comes before it.
    mkdirSync(opened.paths.workspace_path, { recursive: true });
    return opened.paths;
  };
  // A `/name` that is no command is sent as typed; when some command file did not load, the user hears why.
  if (!commandInvocation(typed, catalog)) for (const p of catalog.problems) ctx.note(`custom command not loaded: ${p}`);
  const { promptOfTurn } = await import("../runtime/custom-command-prompt.js");
  const shell = { paths, settings: shellSettingsFromConfig(ctx.config), timeoutSeconds: ctx.config.sandbox.bashTimeoutSeconds, signal: ctx.signal };
  const turn = await promptOfTurn(typed, catalog, process.cwd(), shell);
  const rest = prompt.startsWith(typed) ? prompt.slice(typed.length) : "";
  return { prompt: turn.prompt + rest, attach: turn.attach, ...(threadId ? { threadId } : {}) };
}
