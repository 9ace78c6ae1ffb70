// The TUI's entry (bundled with Ink and React into one file so the first frame is on screen fast; see
// scripts/bundle-tui.mjs). It paints first, then asks the controller to load the runtime.
import { resolve } from "node:path";
import { render } from "ink";
import { App } from "./app.js";
import { ChatController, type ControllerOptions, type StartRequest } from "./controller.js";
import { loadMarkdown } from "./markdown/load.js";
import { ChatStore } from "./store.js";
import type { ApprovalMode } from "../vocabulary/approval-modes.js";

export interface StartChatOptions {
  version: string;
  cwd: string;
  /** Where a new thread works: a directory, null for its own fresh folder, undefined when resuming (not known yet). */
  workspace?: string | null;
  /** One line about the workspace (the current directory was not bound), shown under the header. */
  notice?: string;
  loadSession: ControllerOptions["loadSession"];
  /** Records trust in a project folder (the start-up's trust question). */
  trustFolder?: ControllerOptions["trustFolder"];
  /** First run without a model: offer the local servers' models (see ChatController). */
  firstRun?: ControllerOptions["firstRun"];
  start: StartRequest;
  /** Shown in the status line until the runtime is loaded. */
  approvalMode?: ApprovalMode;
}

export interface ChatExit {
  threadId?: string;
}

/** The header's second line: the directory the session works in. */
function headerWorkspace(opts: StartChatOptions): string {
  if (opts.workspace === null) return `a fresh folder for each new thread${opts.notice ? "" : " (--scratch)"}`;
  return resolve(opts.cwd, opts.workspace ?? ".");
}

export async function startChat(opts: StartChatOptions): Promise<ChatExit> {
  // A resumed thread is named from the first frame, so nobody takes the screen for a new thread while it loads.
  const resuming = opts.start.resume ? { threadId: opts.start.resume.threadId } : undefined;
  const store = new ChatStore({ approvalMode: opts.approvalMode ?? "ask", resuming, threadId: resuming?.threadId });
  store.dispatch({ type: "ui.item", item: { kind: "banner", version: opts.version, cwd: headerWorkspace(opts) } });
  if (opts.notice) store.dispatch({ type: "ui.notice", level: "warning", text: opts.notice });
  const exitRef: { current?: (error?: Error) => void } = {};
  const controller = new ChatController({
    store,
    // The Markdown libraries load beside the runtime (never before the first frame); answers wait for neither.
    loadSession: (o) => Promise.all([opts.loadSession(o), loadMarkdown()]).then(([session]) => session),
    firstRun: opts.firstRun,
    trustFolder: opts.trustFolder,
    exit: (error) => exitRef.current?.(error === undefined ? undefined : error instanceof Error ? error : new Error(String(error))),
  });
  const instance = render(<App store={store} controller={controller} exitRef={exitRef} />, {
    exitOnCtrlC: false,
    patchConsole: true,
  });
  // The first frame is written synchronously by render(); the runtime loads after it.
  setImmediate(() => void controller.start(opts.start));
  // A closed terminal (SIGHUP) or a supervisor's SIGTERM: cancel the running request so the thread is saved as
  // interrupted and its lock released, then leave.
  const onSignal = () => void controller.exit();
  for (const sig of ["SIGHUP", "SIGTERM"] as const) process.once(sig, onSignal);
  try {
    await instance.waitUntilExit();
  } finally {
    for (const sig of ["SIGHUP", "SIGTERM"] as const) process.off(sig, onSignal);
  }
  return { threadId: controller.threadId };
}
