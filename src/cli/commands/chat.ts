// `deerflow [chat] [prompt]` and `deerflow resume <thread>`: the interactive TUI. It needs a terminal on both
// ends; scripts use `deerflow run`. The TUI bundle paints its first frame before the runtime is imported.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { fileURLToPath } from "node:url";
import { loadBundle, type LoadedBundle } from "../code-cache.js";
import { loadRuntime, saveRuntimeCache } from "../load-runtime.js";
import { cacheHomeOf } from "../../config/cache-home.js";
import { peekDataHome, trustFolder } from "../../config/trust-store.js";
import { chooseStartWorkspace } from "../../sandbox/start-workspace.js";
import { DeerflowError, UsageError } from "../../errors.js";
import type { ApprovalMode } from "../../vocabulary/approval-modes.js";
import type { GlobalOptions } from "../main.js";
import { reportFatal } from "../report-error.js";
import { approvalFlag } from "../shared-options.js";

export interface ChatOptions extends GlobalOptions {
  thread?: string;
  continue?: boolean;
  workspace?: string;
  /** --scratch: new threads work in a fresh per-thread folder instead of the current directory. */
  scratch?: boolean;
  approval?: ApprovalMode;
  /** --permission-mode: --approval by Claude Code's names. */
  permissionMode?: ApprovalMode;
  goal?: string;
  network?: boolean;
  /** false with --no-memory. */
  memory?: boolean;
  allowDangerousWorkspace?: boolean;
  /** --dangerously-run-unconfined */
  dangerouslyRunUnconfined?: boolean;
}

function version(): string {
  return (JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

let tuiBundle: LoadedBundle<unknown> | undefined;

/**
 * The TUI bundle (scripts/bundle-tui.mjs) through V8's code cache (code-cache.ts). Ink turns its interactive mode
 * off when CI/CONTINUOUS_INTEGRATION is set (it decides when it is loaded). A person at a real terminal wants the
 * interactive screen whatever their shell exports, so hide the variables while Ink loads, then put them back for the
 * commands the agent runs.
 */
function loadTui(cacheDir: string): typeof import("../../tui/start.js") {
  const saved = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  try {
    const bundled = fileURLToPath(new URL("../../tui-bundle/start.cjs", import.meta.url));
    if (!existsSync(bundled)) throw new DeerflowError(`The chat screen is not built (${bundled} is missing).`, { hint: "Run `npm run build` in the deerflow folder." });
    const tui = loadBundle<typeof import("../../tui/start.js")>(bundled, cacheDir);
    tuiBundle = tui;
    return tui.exports;
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
  }
}

/**
 * The chat's runtime: the runtime bundle shared with `run` and the other commands (load-runtime.ts), so the session,
 * its stores and its sandbox are one copy.
 */
const importRuntime = async () => (await loadRuntime("chat")).chatSession();

/**
 * Once the session is up, keep the code compiled so far (the bundles and what start-up ran of them) for the next
 * start. Only the first start with a new build or node pays for it (tens of ms); a no-op when the caches were used.
 */
function saveCodeCaches(): void {
  tuiBundle?.saveCache();
  saveRuntimeCache();
}

export async function chatCommand(words: string[], opts: ChatOptions): Promise<number> {
  try {
    if (opts.thread && opts.continue) throw new UsageError("Use either --thread <id> or --continue, not both.");
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      throw new UsageError("deerflow chat needs an interactive terminal.", 'For scripts and pipes use `deerflow run "…"` (the prompt may come on stdin).');
    }
    if (opts.goal !== undefined && !opts.goal.trim()) throw new UsageError("--goal needs an objective.", 'Say what must be true when the work is done: --goal "…".');
    // Where new threads work (the current directory unless refused or --scratch): decided before the first frame,
    // so the header names it. A resumed thread keeps its own (the chat says so when it is elsewhere).
    const start = chooseStartWorkspace({
      explicit: opts.workspace,
      scratch: opts.scratch,
      cwd: process.cwd(),
      allowDangerous: opts.allowDangerousWorkspace,
      userHome: process.env.HOME ?? homedir(),
      dataDir: peekDataHome(opts.home),
    });
    // Raw mode at once: keys typed while the TUI loads wait in the terminal (read by Ink as soon as it listens)
    // instead of being echoed over the screen.
    process.stdin.setRawMode(true);
    const cacheDir = cacheHomeOf();
    let startChat: typeof import("../../tui/start.js").startChat;
    try {
      ({ startChat } = loadTui(cacheDir));
    } catch (err) {
      process.stdin.setRawMode(false);
      throw err;
    }
    const resume = opts.thread ? { threadId: opts.thread } : opts.continue ? { latest: true } : undefined;
    const exit = await startChat({
      version: version(),
      cwd: process.cwd(),
      workspace: resume ? undefined : (start.workspace ?? null),
      notice: resume ? undefined : start.notice,
      approvalMode: approvalFlag(opts),
      start: { prompt: words.join(" "), goal: opts.goal, resume },
      firstRun: {
        choices: async (err) => (await importRuntime()).firstRunChoices(err, { home: opts.home }),
        save: async (choice) => (await importRuntime()).saveFirstRunChoice(choice),
      },
      // Trusts exactly the bytes the question showed (their sha256), where `deerflow trust` records it.
      trustFolder: async ({ untrusted, trustHome }) => void trustFolder(trustHome, untrusted.file, untrusted.sha256),
      loadSession: async (o) => {
        const { createChatSession } = await importRuntime();
        const session = await createChatSession({
          home: opts.home,
          model: opts.model,
          approval: approvalFlag(opts),
          workspace: start.workspace,
          cwd: process.cwd(),
          noNetwork: opts.network === false,
          noMemory: opts.memory === false,
          allowDangerousWorkspace: opts.allowDangerousWorkspace,
          ignoreUntrusted: o?.ignoreUntrusted,
          allowUnconfined: opts.dangerouslyRunUnconfined,
        });
        saveCodeCaches();
        return session;
      },
    });
    await (await importRuntime()).closeChatShell();
    if (exit.threadId) process.stdout.write(`Thread ${exit.threadId} is saved. Continue it with: deerflow resume ${exit.threadId}\n`);
    return 0;
  } catch (err) {
    return reportFatal(err);
  }
}
