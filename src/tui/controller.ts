// What the chat does, apart from drawing it: loads the runtime after the first frame, sends turns, runs slash
// commands and `!cmd`, answers approvals and questions, cancels and exits cleanly. It talks to the runtime only
// through the ChatSession API and its RunEvent stream, and to the screen only through the store.
import type { ChatSession, ChatSessionOptions, ThreadView } from "../runtime/chat-session.js";
import type { RunEvent } from "../runtime/events.js";
import { findDeerflowError, formatErrorLine } from "../errors.js";
import { APPROVAL_MODES } from "../vocabulary/approval-modes.js";
import { isAbortError } from "../vocabulary/error-chain.js";
import { type SlashContext, findSlash, helpCommands, parseSlash } from "./commands/slash-commands.js";
import { customCommandNamed, customHelpRows } from "./commands/custom-commands.js";
import type { ApprovalMode } from "../vocabulary/approval-modes.js";
import { answeredActions, pendingPreview } from "./approval-answer.js";
import type { ApprovalDecision, StatusView } from "./state/types.js";
import type { ChatStore } from "./store.js";
import { loadingText } from "./format.js";
import { modelOptions, switchModel } from "./commands/model-command.js";
import { goalViewOf, showThread } from "./show-thread.js";
import { type ControllerOptions, type StartRequest, type UntrustedFolder, untrustedFolderOf } from "./controller-options.js";
import { MessageQueue } from "./message-queue.js";
import { CompletionSource } from "./completion-source.js";

/** Shift+Tab walks the approval modes in their documented order. */
export const APPROVAL_CYCLE: readonly ApprovalMode[] = APPROVAL_MODES;

export { modelOptions };
export type { ControllerOptions, StartRequest, UntrustedFolder };

/** A cancelled run: the runtime's interrupted error (exit 130) or an abort anywhere in the chain. */
function isInterrupted(err: unknown): boolean {
  if (findDeerflowError(err)?.exitCode === 130) return true;
  return isAbortError(err);
}

export class ChatController {
  private readonly store: ChatStore;
  private readonly opts: ControllerOptions;
  private session: ChatSession | undefined;
  private abort: AbortController | undefined;
  private running: Promise<void> | undefined;
  /** Typed before the runtime finished loading or while a run works: sent in order, one per finished run. */
  private readonly queued: MessageQueue;
  private exiting = false;
  /** The rows of the input's `/` and `@` menus. */
  readonly completion = new CompletionSource(() => this.session);
  /** Set by a slash command that could not run now (a request is busy). */
  private slashRefused = false;

  constructor(opts: ControllerOptions) {
    this.store = opts.store;
    this.opts = opts;
    this.queued = new MessageQueue(opts.store);
  }

  private get dispatch() {
    return this.store.dispatch;
  }

  private notice(level: "info" | "warning" | "error", text: string): void {
    this.dispatch({ type: "ui.notice", level, text });
  }

  get threadId(): string | undefined {
    return this.session?.threadId;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** While the first-run picker is up: what to start after the pick, and the error to leave with on Esc. */
  private pending: { req: StartRequest; error: unknown } | undefined;

  /** While the trust question is up: what to start after the answer, and the folder asked about. */
  private pendingTrust: { req: StartRequest; folder: UntrustedFolder } | undefined;
  /** The user answered "don't trust" (for this session). */
  private ignoreUntrusted = false;

  async start(req: StartRequest): Promise<void> {
    try {
      this.session = await this.opts.loadSession({ ignoreUntrusted: this.ignoreUntrusted });
    } catch (err) {
      const folder = untrustedFolderOf(err);
      if (folder && this.opts.trustFolder && !this.exiting) {
        const u = folder.untrusted;
        this.pendingTrust = { req, folder };
        this.dispatch({ type: "ui.trust.prompt", prompt: { file: u.file, folder: u.folder, changed: u.state === "changed", wants: u.wants } });
        return;
      }
      // No model, but local servers offer some: let the user pick one instead of failing.
      const servers = await this.opts.firstRun?.choices(err).catch(() => []);
      const options = modelOptions(servers ?? []);
      if (options.length > 0 && !this.exiting) {
        this.pending = { req, error: err };
        this.dispatch({ type: "ui.model.picker", options });
        return;
      }
      // A bad .deerflowrc or no model: nothing can work, so leave with the CLI's one-line error (exit 2).
      this.opts.exit(err);
      return;
    }
    const s = this.session;
    if (req.resume) {
      // Ready only once the thread is on screen: what is typed meanwhile waits in the queue and goes to it.
      try {
        this.showThread(await s.resume(req.resume), "Resumed");
      } catch (err) {
        this.opts.exit(err);
        return;
      }
    }
    this.dispatch({
      type: "ui.ready",
      status: { model: s.model.name, approvalMode: s.approval.mode, contextWindow: s.model.contextWindow, resuming: undefined, workspace: s.workspaceLabel() },
    });
    this.showWindow();
    this.learnInBackground();
    this.completion.warm();
    if (req.goal !== undefined) this.submitTurn(req.prompt?.trim() || req.goal, req.goal);
    else if (req.prompt?.trim()) this.submit(req.prompt);
    this.drainQueue();
  }

  /** The first-run picker's answer: an option's index saves it and starts; undefined (Esc) leaves with the error. */
  async pickModel(index: number | undefined): Promise<void> {
    if (this.store.get().modelPickerSwitch) return this.useModel(this.store.get().modelPicker?.[index ?? -1]?.model);
    const pending = this.pending;
    const option = index === undefined ? undefined : this.store.get().modelPicker?.[index];
    if (!pending || !this.opts.firstRun || (index !== undefined && !option)) return;
    this.pending = undefined;
    this.dispatch({ type: "ui.model.picker", options: null });
    if (!option) return this.opts.exit(pending.error);
    try {
      const saved = await this.opts.firstRun.save({ model: option.model, baseUrl: option.baseUrl });
      this.notice("info", `Using ${option.model} at ${option.baseUrl}: saved to ${saved.path} as "${saved.name}" (defaultModel).`);
    } catch (err) {
      return this.opts.exit(err);
    }
    await this.start(pending.req);
  }

  /**
   * The trust question's answer: true trusts the folder (recorded as `deerflow trust` does) and starts with its
   * keys; false starts without them (a notice says which); undefined (Esc) leaves with the one-line refusal.
   */
  async answerTrust(trust: boolean | undefined): Promise<void> {
    const pending = this.pendingTrust;
    if (!pending) return;
    this.pendingTrust = undefined;
    this.dispatch({ type: "ui.trust.prompt", prompt: null });
    const u = pending.folder.untrusted;
    if (trust === undefined) return this.opts.exit(pending.folder);
    if (trust) {
      try {
        await this.opts.trustFolder!(pending.folder);
      } catch (err) {
        return this.opts.exit(err);
      }
      this.notice("info", `Trusted ${u.folder}: its .deerflowrc applies (\`deerflow trust --revoke ${u.folder}\` undoes it).`);
    } else {
      this.ignoreUntrusted = true;
      this.notice("warning", `Not trusted: ${u.file} applies without ${u.wants.length === 1 ? "this" : `these ${u.wants.length}`} (${u.wants.join("; ")}). \`deerflow trust ${u.folder}\` trusts it.`);
    }
    await this.start(pending.req);
  }

  /** Sends what was queued, one message per finished request. */
  private drainQueue(): void {
    while (!this.running && this.queued.length > 0) this.submit(this.queued.shift()!);
  }

  /** Esc with messages queued: the newest one is taken back (the input gets its text) instead of cancelling. */
  unqueueLast(): string | undefined {
    return this.queued.pop();
  }

  private showThread(view: ThreadView, verb: string): void {
    showThread(this.store, this.session, view, verb);
  }

  /**
   * Enter on the input. Returns false when the text was not taken (a run is busy), so the App keeps it in the box.
   */
  submit(raw: string): boolean {
    const text = raw.trim();
    if (!text) return true;
    if (!this.session || !this.store.get().ready) {
      this.queued.push(text);
      const resuming = this.store.get().status.resuming;
      this.notice("info", resuming ? `${loadingText(resuming)} your message goes to that thread once it is loaded.` : "Starting up… your message is sent as soon as the model is ready.");
      return true;
    }
    const slash = text.startsWith("/") ? parseSlash(text) : null;
    if (slash) {
      this.slashRefused = false;
      this.runSlash(slash.name, slash.args);
      // A command refused while a request runs keeps its text in the input, like a refused message.
      return !this.slashRefused;
    }
    if (this.running) {
      // Sent when the run ends (an answer to a question shown while its run is still finishing, too), never refused.
      this.queued.push(text);
      return true;
    }
    if (text.startsWith("!")) {
      this.runShell(text.slice(1).trim());
      return true;
    }
    this.submitTurn(text);
    return true;
  }

  private submitTurn(prompt: string, goal?: string, skill?: string): void {
    const s = this.session!;
    this.dispatch({ type: "ui.user", text: goal !== undefined && prompt === goal ? `/goal ${goal}` : prompt });
    if (goal !== undefined) this.dispatch({ type: "ui.status", status: { goal: { objective: goal, status: "active", continuation_count: 0 } } });
    this.track(async (signal) => {
      let end;
      try {
        const r = await s.send({ prompt, goal, skill }, (e: RunEvent) => this.dispatch(e), signal);
        end = { type: "ui.run.end" as const, end: r.result, goal: goalViewOf(r.goal, s.goal) };
      } catch (err) {
        end = { type: "ui.run.end" as const, error: isInterrupted(err) ? "Interrupted. The thread is saved: type to continue it." : formatErrorLine(err) };
      }
      this.dispatch(end);
      this.refreshTitle();
      this.learnInBackground();
    });
  }

  /** What finished runs taught, extracted while the user reads or types (never awaited: exit does not wait). */
  private learnInBackground(): void {
    if (this.exiting) return;
    // Learned facts wait for the user's review: said here, shown to no model until /memory approve.
    void this.session?.drainMemory(
      (fact) => {
        if (!this.exiting) this.notice("info", `Learned (pending your review): ${fact.text} — /memory pending`);
      },
      (refusal) => {
        if (!this.exiting) this.notice("warning", `Not learned: ${refusal.reason} — /memory pending`);
      },
    );
  }

  /** Runs `work` as the current busy task (one at a time), with its own cancel signal. */
  private track(work: (signal: AbortSignal) => Promise<void>): void {
    const abort = new AbortController();
    this.abort = abort;
    this.dispatch({ type: "ui.run.begin" });
    this.running = work(abort.signal)
      .catch((err: unknown) => this.dispatch({ type: "ui.run.end", error: formatErrorLine(err) }))
      .finally(() => {
        this.running = undefined;
        this.abort = undefined;
        this.completion.refresh();
        if (!this.exiting) this.drainQueue();
      });
  }

  private refreshTitle(): void {
    // The title is decoration: a locked, busy or unreachable database must not disturb the chat.
    void this.session
      ?.threadRow()
      .then((row) => {
        if (row) this.dispatch({ type: "ui.status", status: { threadId: row.id, title: row.title ?? undefined } });
      })
      .catch(() => {});
  }

  /** Esc: cancel the running request (the thread keeps what was done). */
  cancel(): boolean {
    if (!this.abort) return false;
    this.dispatch({ type: "ui.run.cancelling" });
    this.abort.abort();
    return true;
  }

  /** `reason`: a denial's words to the model. */
  answerApproval(id: string, decision: ApprovalDecision, reason?: string): void {
    const req = this.store.get().approvals.find((a) => a.id === id);
    this.session?.respondApproval(id, decision, reason);
    this.dispatch({ type: "ui.approval.answered", id });
    // "Always" settled the other requests waiting in the same scope (the broker let them run): their prompts go too.
    if (req?.scope !== undefined && decision === "allow_always")
      for (const other of this.store.get().approvals) if (other.scope === req.scope) this.dispatch({ type: "ui.approval.answered", id: other.id });
    if (req) for (const action of answeredActions(req, decision, reason)) this.dispatch(action);
  }

  /** Ctrl+O on an edit's approval: its whole diff (a plan: all of it), printed into the transcript above the prompt. */
  showPendingDiff(id: string): void {
    const req = this.store.get().approvals.find((a) => a.id === id);
    const item = req && pendingPreview(req);
    if (item) this.dispatch({ type: "ui.item", item });
  }

  cycleApproval(): void {
    const current = this.store.get().status.approvalMode;
    const after = (m: ApprovalMode) => APPROVAL_CYCLE[(APPROVAL_CYCLE.indexOf(m) + 1) % APPROVAL_CYCLE.length]!;
    let next = after(current);
    // yolo without bubblewrap (and without --dangerously-run-unconfined) is refused: say so, and go on to the next.
    const refused = this.session?.setApprovalMode(next);
    if (refused) {
      this.notice("warning", refused);
      next = after(next);
      this.session?.setApprovalMode(next);
    }
    this.dispatch({ type: "ui.status", status: { approvalMode: next } });
  }

  /** Leave: a running request is cancelled first and its thread saved as interrupted. */
  async exit(): Promise<void> {
    if (this.exiting) return;
    this.exiting = true;
    this.dispatch({ type: "ui.exit.arm", armed: false });
    this.cancel();
    await this.running;
    this.opts.exit();
  }

  private runShell(command: string): void {
    if (!command) {
      this.notice("info", "Type a command after !, e.g. !ls -la");
      return;
    }
    const s = this.session!;
    this.track(async (signal) => {
      const out = await s.shell(command, signal);
      this.dispatch({ type: "ui.item", item: { kind: "shell", command, cwd: out.cwd, output: out.output, exitCode: out.exitCode, stoppedBy: out.stoppedBy } });
      this.dispatch({ type: "ui.run.end" });
      this.dispatch({ type: "ui.status", status: { threadId: s.threadId } });
    });
  }

  /** `/model <name>` or a pick in `/model`'s picker (undefined: esc, the model stays). */
  private useModel(name: string | undefined): void {
    this.dispatch({ type: "ui.model.picker", options: null });
    if (name === undefined) return this.notice("info", `Model unchanged: ${this.session!.model.name}`);
    const r = switchModel(this.session!, name);
    if (r.model) this.dispatch({ type: "ui.status", status: { model: r.model.name, contextWindow: r.model.contextWindow } });
    if (r.model) this.showWindow();
    this.notice(r.level, r.text);
  }

  /** The status line's `ctx %` needs the window from the first call: learned from the server when not configured. */
  private showWindow(): void {
    const [s, model] = [this.session!, this.session!.model];
    s.contextWindow().then(
      (contextWindow) => s.model === model && this.dispatch({ type: "ui.status", status: { contextWindow } }),
      () => {},
    );
  }

  /** `/name args`: a registered command, else `/<skill> [request]`, else a custom command, else one warning. */
  private runSlash(name: string, args: string): void {
    const [s, cmd] = [this.session!, findSlash(name)];
    if (cmd) return cmd.run(this.slashContext(s, args));
    // `/<skill> [request]`: the skill's instructions go in with the request (built-in commands win a name clash); a
    // custom command's file is expanded by the session when it sends the turn (chat-session.ts).
    const skill = s.skills.skills.some((k) => k.name === name);
    if (skill || customCommandNamed(s, name)) {
      if (this.running) this.queued.push(`/${name}${args ? ` ${args}` : ""}`);
      else this.submitTurn(`/${name}${args ? ` ${args}` : ""}`, undefined, skill ? name : undefined);
      return;
    }
    this.notice("warning", `Unknown command /${name}. Type /help for the list (and /skills for the skills).`);
  }

  /** What a slash command may do (commands/types.ts). */
  private slashContext(session: ChatSession, args: string): SlashContext {
    const whileIdle = (what: string, fn: () => void) => {
      if (!this.running) return fn();
      this.slashRefused = true;
      this.notice("warning", `Wait for the running request (or press esc) before ${what}.`);
    };
    return {
      session,
      store: this.store,
      args,
      notice: (level, text) => this.notice(level, text),
      whileIdle,
      idleTask: (what, work) =>
        whileIdle(what, () =>
          this.track(async () => {
            await work().catch((err: unknown) => this.notice("error", formatErrorLine(err)));
            this.dispatch({ type: "ui.run.end" });
          }),
        ),
      showThread: (view, verb) => this.showThread(view, verb),
      submitTurn: (prompt, goal) => this.submitTurn(prompt, goal),
      useModel: (name) => this.useModel(name),
      exit: () => void this.exit(),
      helpRows: () => [...helpCommands(), ...customHelpRows(session)],
      isBuiltIn: (n) => findSlash(n) !== undefined,
    };
  }
}

export type { StatusView, ChatSessionOptions };
