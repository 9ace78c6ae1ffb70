// `deerflow [chat] [prompt]` and `deerflow resume <thread>`: the interactive TUI. It needs a terminal on both
// ends; scripts use `deerflow run`. The TUI bundle paints its first frame before the runtime is imported.
import { existsSync, readFileSync } from "node:fs";
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

/**
 * The chat's runtime as one bundled file (scripts/bundle-runtime.mjs): a third of the time to load the ~1,500
 * modules it is made of. Every use in the chat goes through it, so the session, its stores and its sandbox are one
 * copy. Running from src (tests) there is no bundle: the modules load as they are.
 */
async function importRuntime(): Promise<typeof import("../../runtime/chat-session.js")> {
  const bundled = new URL("../../runtime-bundle/chat-session.js", import.meta.url);
  if (existsSync(bundled)) return (await import(bundled.href)) as typeof import("../../runtime/chat-session.js");
  return import("../../runtime/chat-session.js");
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
        choices: async (err) => (await importRuntime()).firstRunChoices(err),
        save: async (choice) => (await importRuntime()).saveFirstRunChoice(choice),
      },
      loadSession: async () => {
        const { createChatSession } = await importRuntime();
        return createChatSession({ home: opts.home, model: opts.model, approval: opts.approval, workspace: opts.workspace, plan: opts.plan, cwd: process.cwd(), noNetwork: opts.network === false, noMemory: opts.memory === false, allowDangerousWorkspace: opts.allowDangerousWorkspace });
      },
    });
    await (await importRuntime()).closeChatShell();
    if (exit.threadId) process.stdout.write(`Thread ${exit.threadId} is saved. Continue it with: deerflow resume ${exit.threadId}\n`);
    return 0;
  } catch (err) {
    return reportFatal(err);
  }
}
