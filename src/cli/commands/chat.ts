// `deerflow [chat] [prompt]` and `deerflow resume <thread>`: the interactive TUI. It needs a terminal on both
// ends; scripts use `deerflow run`. The TUI bundle paints its first frame before the runtime is imported.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadBundle, type LoadedBundle } from "../code-cache.js";
import { UsageError } from "../../errors.js";
import type { ApprovalMode } from "../../vocabulary/approval-modes.js";
import type { GlobalOptions } from "../main.js";
import { reportFatal } from "../report-error.js";

export interface ChatOptions extends GlobalOptions {
  thread?: string;
  continue?: boolean;
  workspace?: string;
  approval?: ApprovalMode;
  plan?: boolean;
  goal?: string;
  network?: boolean;
  /** false with --no-memory. */
  memory?: boolean;
  allowDangerousWorkspace?: boolean;
}

function version(): string {
  return (JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

/**
 * Ink turns its interactive mode off when CI/CONTINUOUS_INTEGRATION is set (it decides when it is imported). A
 * person at a real terminal wants the interactive screen whatever their shell exports, so hide the variables
 * while Ink loads, then put them back for the commands the agent runs.
 */
async function importTui() {
  const saved = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  // Ink's layout engine (yoga, WebAssembly) fetches its embedded binary with `fetch` when there is one, which
  // loads Node's whole HTTP client first (~40 ms); without `fetch` it decodes the bytes directly.
  const fetch = globalThis.fetch;
  (globalThis as { fetch?: unknown }).fetch = undefined;
  try {
    return await import("../../tui-bundle/start.js" as string) as typeof import("../../tui/start.js");
  } finally {
    globalThis.fetch = fetch;
    for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
  }
}

type Runtime = typeof import("../../runtime/chat-session.js");

/**
 * The chat's runtime as one bundled file (scripts/bundle-runtime.mjs): a third of the time to load the ~1,500
 * modules it is made of, and compiled once per bundle and node version (code-cache.ts keeps V8's compiled code in
 * `<home>/cache/`). Every use in the chat goes through it, so the session, its stores and its sandbox are one copy.
 * Running from src (tests) there is no bundle: the modules load as they are.
 */
let runtime: Promise<{ exports: Runtime; saveCache(): void }> | undefined;
function importRuntime(home: string | undefined): Promise<Runtime> {
  runtime ??= (async () => {
    const bundled = fileURLToPath(new URL("../../runtime-bundle/chat-session.cjs", import.meta.url));
    if (!existsSync(bundled)) return { exports: await import("../../runtime/chat-session.js"), saveCache: () => {} };
    // The home as the flags and environment name it (a `home` set in .deerflowrc is known only to the runtime).
    const cacheDir = join(resolve(home ?? process.env.DEERFLOW_HOME ?? join(homedir(), ".deerflow")), "cache");
    return loadBundle<Runtime>(bundled, cacheDir) satisfies LoadedBundle<Runtime>;
  })();
  return runtime.then((r) => r.exports);
}

/**
 * Once the session is up, keep the code compiled so far (the bundle and what start-up ran of it) for the next start.
 * Only the first start with a new bundle or node pays for it (tens of ms); a no-op when the cache was used.
 */
async function saveRuntimeCache(): Promise<void> {
  (await runtime)?.saveCache();
}

export async function chatCommand(words: string[], opts: ChatOptions): Promise<number> {
  try {
    if (opts.thread && opts.continue) throw new UsageError("Use either --thread <id> or --continue, not both.");
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      throw new UsageError("deerflow chat needs an interactive terminal.", 'For scripts and pipes use `deerflow run "…"` (the prompt may come on stdin).');
    }
    if (opts.goal !== undefined && !opts.goal.trim()) throw new UsageError("--goal needs an objective.", 'Say what must be true when the work is done: --goal "…".');
    // Raw mode at once: keys typed while the TUI loads wait in the terminal (read by Ink as soon as it listens)
    // instead of being echoed over the screen.
    process.stdin.setRawMode(true);
    const { startChat } = await importTui().catch((err: unknown) => {
      process.stdin.setRawMode(false);
      throw err;
    });
    const resume = opts.thread ? { threadId: opts.thread } : opts.continue ? { latest: true } : undefined;
    const exit = await startChat({
      version: version(),
      cwd: process.cwd(),
      approvalMode: opts.approval,
      planMode: opts.plan,
      start: { prompt: words.join(" "), goal: opts.goal, resume },
      firstRun: {
        choices: async (err) => (await importRuntime(opts.home)).firstRunChoices(err),
        save: async (choice) => (await importRuntime(opts.home)).saveFirstRunChoice(choice),
      },
      loadSession: async () => {
        const { createChatSession } = await importRuntime(opts.home);
        const session = await createChatSession({ home: opts.home, model: opts.model, approval: opts.approval, workspace: opts.workspace, plan: opts.plan, cwd: process.cwd(), noNetwork: opts.network === false, noMemory: opts.memory === false, allowDangerousWorkspace: opts.allowDangerousWorkspace });
        await saveRuntimeCache();
        return session;
      },
    });
    await (await importRuntime(opts.home)).closeChatShell();
    if (exit.threadId) process.stdout.write(`Thread ${exit.threadId} is saved. Continue it with: deerflow resume ${exit.threadId}\n`);
    return 0;
  } catch (err) {
    return reportFatal(err);
  }
}
