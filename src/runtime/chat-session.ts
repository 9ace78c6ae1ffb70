// The interactive session behind `deerflow chat` / `resume`: which thread and model are current, how a person
// answers guarded commands, and every action the TUI offers (send, goal, resume, title, `!cmd`, threads).
// The TUI loads this module only after its first frame is on screen (it pulls in LangChain and SQLite), and talks
// to it through this small API plus the RunEvent stream — never through the graph.
import { existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";
import { assertAutoApprovalWorkspace, assertSafeSandboxPaths, assertSafeWorkspace, autoApprovalWorkspaceProblem } from "../sandbox/workspace-check.js";
import { continuingNotice } from "../sandbox/start-workspace.js";
import { isInside } from "../sandbox/paths.js";
import { type ResolvedConfig, type ResolvedMcpServer, type ResolvedModel, loadConfig, requireModel } from "../config/load.js";
import { UsageError, findDeerflowError } from "../errors.js";
import { UntrustedFolderError } from "../config/project-trust.js";
import { type ModelChoice, type SavedChoice, saveModelChoice } from "../config/save-model-choice.js";
import { configuredEndpointModels } from "../config/configured-endpoint.js";
import { type DiscoveredServer, discoverLocalServers, listEndpointModels } from "../model/discover.js";
import { DB_FILE } from "../persistence/store.js";
import type { ThreadRow } from "../persistence/thread-index.js";
import type { ApprovalMode } from "../vocabulary/approval-modes.js";
import { type NotificationHooks, notificationHooks } from "./notification-hooks.js";
import { exportThreadToFile } from "./export-file.js";
import type { HookReport } from "../hooks/run-hooks.js";
import { type ApprovalDecision, type ApprovalSettings, type EventBroker, eventBroker } from "../sandbox/approvals.js";
import type { ThreadPaths } from "../sandbox/provider.js";
import { assertShellUsable, closeShellSessions, runShell, setShellWarningSink } from "../sandbox/run-shell.js";
import { shellSettingsFromConfig } from "../sandbox/shell-settings.js";
import { maskCredentials } from "../sandbox/env-scrub.js";
import { assertAutoApprovalConfined, unconfinedAutoApprovalProblem, yoloRefusedNotice } from "../sandbox/unconfined.js";
import { auditCommand } from "../sandbox/shell-audit.js";
import { blockedMessage } from "../middleware/sandbox-audit.js";
import { capOutput } from "../tools/bash.js";
import { clearGoalUpdate } from "../state/goal-clear.js";
import type { GoalState } from "../state/types.js";
import { type CheckedAs, atPathUploads } from "./at-path-uploads.js";
import type { RunEvent, RunEventListener } from "./events.js";
import { type GoalSummary, runGoalThread } from "./run-goal.js";
import { type RunResult, runThread } from "./run-thread.js";
import { ThreadRuntime } from "./thread-runtime.js";
import { modelWindowOf } from "./run-agent.js";
import { type RewindOutcome, type RewindableRun, type UndoOutcome, listRewindable, rewindStoreFor, rewindThread, undoRewind } from "./rewind.js";
import type { RewindScope } from "../persistence/rewind-log.js";
import { type SkillCatalog, skillCatalogFor } from "../skills/catalog.js";
import { type CommandCatalog, commandCatalogFor } from "../commands/catalog.js";
import { promptOfTurn } from "./custom-command-prompt.js";
import { submitPrompt } from "./prompt-hooks.js";
import { type Fact, type MemoryStore, memoryStoreFor } from "../memory/store.js";
import { projectKeyOf } from "../memory/project.js";
import { closeMemory, drainMemoryQueue } from "./memory-drain.js";
import { McpHub, type McpServerState, closeMcpServers } from "../mcp/hub.js";
import type { ThreadView } from "./thread-view.js";
import { WorkspacePathIndex } from "./workspace-path-index.js";
import { userShellMessage } from "./user-shell-message.js";

export type { ThreadView, TranscriptEntry } from "./thread-view.js";
export type { RewindOutcome, RewindableRun, UndoOutcome } from "./rewind.js";
export type { RewindScope } from "../persistence/rewind-log.js";
export type { McpServerState } from "../mcp/hub.js";
export type { SkillCatalog } from "../skills/catalog.js";
export type { CommandCatalog, CustomCommand } from "../commands/catalog.js";
export type { Fact, MemoryStore } from "../memory/store.js";
export type { ThreadRow } from "../persistence/thread-index.js";
export type { ApprovalDecision } from "../sandbox/approvals.js";
export type { DiscoveredServer } from "../model/discover.js";
export type { ModelChoice, SavedChoice } from "../config/save-model-choice.js";
export type { WorkspacePathIndex, PathIndexState } from "./workspace-path-index.js";

export interface ChatSessionOptions {
  home?: string;
  model?: string;
  approval?: ApprovalMode;
  /** Bind the first new thread's workspace to this directory. */
  workspace?: string;
  /** Where `@path` is resolved and .deerflowrc is searched from. */
  cwd?: string;
  /** --no-network */
  noNetwork?: boolean;
  /** --no-memory */
  noMemory?: boolean;
  /** --allow-dangerous-workspace */
  allowDangerousWorkspace?: boolean;
  /** The user answered "don't trust": go on with the project file's keys that need trust left out. */
  ignoreUntrusted?: boolean;
  /** --dangerously-run-unconfined: yolo allowed without bubblewrap (sandbox/unconfined.ts). */
  allowUnconfined?: boolean;
  /** MCP servers beside the configured ones (an editor's, over ACP). */
  mcpServers?: Record<string, ResolvedMcpServer>;
}

export interface TurnResult {
  /** The last run (absent when it failed before starting). */
  result: Omit<RunResult, "messages">;
  goal?: GoalSummary;
}

export interface ShellOutput {
  command: string;
  cwd: string;
  output: string;
  exitCode: number | undefined;
  stoppedBy?: "timeout" | "abort";
}

/** `!cmd` output kept for the screen. */
const SHELL_OUTPUT_MAX_CHARS = 8_000;

export class ChatSession {
  readonly config: ResolvedConfig;
  readonly cwd: string;
  model: ResolvedModel;
  threadId: string | undefined;
  /** The thread's active goal (null when none), as of the last run or resume. */
  goal: GoalState | null = null;
  /** Workspaces of the threads this session has opened (memory's project key needs one without a query). */
  private readonly workspaces = new Map<string, string>();
  /** The thread SessionStart hooks last ran for (prompt-hooks.ts). */
  private sessionThread: string | undefined;
  private readonly options: ChatSessionOptions;
  private readonly broker: EventBroker;
  /** Shared with every run: Shift+Tab changes `mode` while a run works. */
  readonly approval: ApprovalSettings;
  private listener: RunEventListener | undefined;
  /** Notification hooks: told when a question waits for the user (notification-hooks.ts). */
  readonly notifications: NotificationHooks;

  constructor(options: ChatSessionOptions = {}) {
    this.options = options;
    this.cwd = options.cwd ?? process.cwd();
    const loaded = loadConfig({ cwd: this.cwd, flags: { home: options.home, model: options.model, approval: options.approval, noNetwork: options.noNetwork, noMemory: options.noMemory } });
    // An editor's own MCP servers (`deerflow acp`) run beside the configured ones.
    this.config = options.mcpServers ? { ...loaded, mcp: { ...loaded.mcp, servers: { ...loaded.mcp.servers, ...options.mcpServers } } } : loaded;
    // Before anything of the project file is used (its MCP servers start below): the TUI asks first.
    if (this.config.untrusted && !options.ignoreUntrusted) throw new UntrustedFolderError(this.config.untrusted, this.config.trustHome);
    this.model = requireModel(this.config);
    assertShellUsable(this.config.sandbox);
    assertAutoApprovalConfined({ approval: this.config.approval, allowUnconfined: options.allowUnconfined });
    assertSafeWorkspace(options.workspace, { userHome: process.env.HOME ?? homedir(), dataDir: this.config.home, allow: options.allowDangerousWorkspace });
    assertAutoApprovalWorkspace(options.workspace, this.config.home, this.config.approval === "yolo");
    assertSafeSandboxPaths(this.config.sandbox, { userHome: process.env.HOME ?? homedir(), dataDir: this.config.home });
    this.notifications = notificationHooks(this.config);
    this.broker = eventBroker((e) => {
      this.listener?.(e);
      this.notifications.watch(e, this.listener);
    });
    this.approval = { mode: this.config.approval, broker: this.broker };
    // MCP servers start now, in the background (the first frame is already up): by the first prompt they are
    // ready. A failure is reported in the first run; confined servers wait for the thread's workspace.
    void McpHub.for(this.config)
      .start({ shell: shellSettingsFromConfig(this.config) })
      .catch(() => {});
  }

  /** /mcp: the configured MCP servers, their status and tools. */
  mcpServers(): McpServerState[] {
    return McpHub.for(this.config).servers();
  }

  /**
   * Extracts what finished runs taught (in the background: the chat never waits for it; leaving the chat hands an
   * unfinished run back to the queue). Resolves with the facts added.
   */
  async drainMemory(onAdded?: (fact: Fact) => void, onRefused?: (refusal: { text: string; reason: string }) => void): Promise<Fact[]> {
    return (await drainMemoryQueue(this.config, this.model, { onAdded, onRefused }).catch(() => undefined))?.added ?? [];
  }

  /** The memory store of this home (for /memory), or undefined when memory is off. */
  get memory(): MemoryStore | undefined {
    return this.config.memory.enabled ? memoryStoreFor(this.config.home) : undefined;
  }

  /** The project key of the current thread's workspace (or of the workspace a new thread would bind). */
  memoryProject(): string {
    const ws = this.threadId ? this.workspaces.get(this.threadId) : this.options.workspace;
    return projectKeyOf(ws ?? undefined, this.config.home);
  }

  /** Where the current thread works, or where a new thread would (null: its own fresh folder). */
  currentWorkspace(): string | null {
    if (this.threadId) return this.workspaces.get(this.threadId) ?? null;
    return this.options.workspace ? resolve(this.cwd, this.options.workspace) : null;
  }

  /** The status line's name for it: the directory's name, or "scratch" for a thread's own fresh folder. */
  workspaceLabel(): string {
    const ws = this.currentWorkspace();
    return !ws || isInside(ws, join(this.config.home, "threads")) ? "scratch" : basename(ws) || ws;
  }

  /** One line when the current (resumed) thread works somewhere other than the directory the chat started in. */
  workspaceNotice(): string | undefined {
    const ws = this.threadId ? this.workspaces.get(this.threadId) : undefined;
    return this.threadId && ws ? continuingNotice(this.threadId, ws, this.cwd) : undefined;
  }

  /** The installed skills (discovered once per process, like the agent's `skill` tool). */
  get skills(): SkillCatalog {
    return skillCatalogFor({ home: this.config.home, cwd: process.cwd() });
  }

  /** The custom commands (commands/catalog.ts) of this folder and the data directory, discovered once. */
  get commands(): CommandCatalog {
    return commandCatalogFor({ home: this.config.home, cwd: this.cwd });
  }

  private paths: WorkspacePathIndex | undefined;

  /**
   * The files `@` completes: those of the folder `@path` resolves in, listed in the background on first use. A
   * folder a workspace may not be ($HOME, /, the data directory: the workspace check) is never listed.
   */
  pathIndex(): WorkspacePathIndex {
    if (this.paths) return this.paths;
    let refusal: string | undefined;
    try {
      assertSafeWorkspace(this.cwd, { userHome: process.env.HOME ?? homedir(), dataDir: this.config.home });
    } catch (err) {
      refusal = `${this.cwd} is not listed for @ completion (${(err as Error).message.replace(/^Refusing --workspace [^:]*: /, "").replace(/;.*$/s, "")}); type the path in full.`;
    }
    this.paths = new WorkspacePathIndex(this.cwd, refusal);
    void this.paths.refresh();
    return this.paths;
  }

  /** The current model's context window (configured, learned from its server, or the default): the status line's `ctx %`. */
  async contextWindow(): Promise<number> {
    return (await modelWindowOf(this.model)).tokens;
  }

  /** Names configured in .deerflowrc `models`. */
  get modelNames(): string[] {
    return Object.keys(this.config.models);
  }

  /** Local servers found by the last `discoverModels()` (what `/model <id>` may pick beside the configured names). */
  private discovered: DiscoveredServer[] = [];

  /**
   * `/model`'s choices beyond the configured names: the current endpoint's `/v1/models` (asked with its own key)
   * and the usual local servers (loopback), all in parallel with short timeouts. `/model <id>` may then pick one.
   */
  async discoverModels(): Promise<DiscoveredServer[]> {
    const [endpoint, local] = await Promise.all([listEndpointModels("endpoint", this.model.baseUrl, this.model.apiKey, 3000), discoverLocalServers()]);
    // The endpoint itself may be a local server: listed once, as the endpoint.
    this.discovered = [...(endpoint ? [endpoint] : []), ...local.filter((s) => s.baseUrl !== endpoint?.baseUrl)];
    return this.discovered;
  }

  /** A configured name, a model id of a discovered server (used at that server), or a raw id at the default endpoint. */
  setModel(name: string): ResolvedModel {
    // A model of a local server is used at that server; one the endpoint listed, at the default endpoint as any id.
    const local = this.modelNames.includes(name) ? undefined : this.discovered.find((s) => s.name !== "endpoint" && s.models.includes(name));
    // Without the user's OPENAI_API_KEY: a server deerflow found listening on a loopback port is not one the user gave
    // that key to (another user's listener, a dev server the agent started: the eighteenth pass's LK). A local server
    // that needs a key is configured as a model entry with its own.
    const env = local ? { ...process.env, OPENAI_BASE_URL: local.baseUrl, OPENAI_API_KEY: undefined } : undefined;
    this.model = requireModel(
      loadConfig({ cwd: this.cwd, env, trustHome: this.config.trustHome, flags: { home: this.config.home, model: name, approval: this.approval.mode, noNetwork: !this.config.sandbox.network } }),
    );
    return this.model;
  }

  /** Switches the approval mode, or returns why not (yolo without bubblewrap and without the flag) and keeps it. */
  setApprovalMode(mode: ApprovalMode): string | undefined {
    if (unconfinedAutoApprovalProblem({ approval: mode, allowUnconfined: this.options.allowUnconfined })) return yoloRefusedNotice();
    // The current thread's workspace: a resumed thread bound to the home counts as much as a new one.
    const workspaceProblem = mode === "yolo" ? autoApprovalWorkspaceProblem(this.currentWorkspace() ?? undefined, { userHome: process.env.HOME ?? homedir(), dataDir: this.config.home }) : undefined;
    if (workspaceProblem) return `yolo is off here: ${workspaceProblem.replace(/: refusing\.$/, ".")}`;
    this.approval.mode = mode;
    return undefined;
  }

  /** `reason`: for a denial, the user's words to the model (in the tool result). */
  respondApproval(id: string, decision: ApprovalDecision, reason?: string): boolean {
    return this.broker.respond(id, decision, reason);
  }

  private hasDatabase(): boolean {
    return this.config.database !== undefined || existsSync(join(this.config.home, DB_FILE));
  }

  /** The home's runtime: its store and graphs stay open for the whole session. */
  private get runtime(): ThreadRuntime {
    return ThreadRuntime.for(this.config);
  }

  /** Threads, newest first. */
  async listThreads(): Promise<ThreadRow[]> {
    if (!this.hasDatabase()) return [];
    return this.runtime.store.threads.list();
  }

  /** The current thread's index row (title, status), if it exists yet. */
  async threadRow(): Promise<ThreadRow | undefined> {
    const id = this.threadId;
    if (!id || !this.hasDatabase()) return undefined;
    const row = await this.runtime.store.threads.get(id);
    if (row?.workspace) this.workspaces.set(id, row.workspace);
    return row;
  }

  /** Makes `threadId` (or the latest thread) current and returns it as it was left. */
  async resume(sel: { threadId?: string; latest?: boolean }): Promise<ThreadView> {
    if (!sel.threadId && !this.hasDatabase()) throw new UsageError("There is no thread to continue yet.", "Start one with `deerflow`.");
    if (sel.threadId && !this.hasDatabase()) throw new UsageError(`Thread ${sel.threadId} not found.`, "List threads with /threads or `deerflow threads`.");
    const { runtime, opened } = await this.runtime.open({ threadId: sel.threadId, continueLatest: sel.latest, readOnly: true });
    const view = await runtime.view(opened.threadId, this.model);
    this.threadId = view.thread.id;
    this.workspaces.set(view.thread.id, opened.paths.workspace_path);
    this.goal = view.goal;
    return view;
  }

  /** The next prompt starts a fresh thread (/clear). */
  newThread(): void {
    this.threadId = undefined;
    this.goal = null;
  }

  /** The current thread, created now when there is none yet (for `!cmd`, and an editor's new session); returns its workspace. */
  async ensureThread(): Promise<ThreadPaths> {
    const { opened } = await this.runtime.open({ threadId: this.threadId, workspace: this.threadId ? undefined : this.options.workspace });
    this.threadId = opened.threadId;
    this.workspaces.set(opened.threadId, opened.paths.workspace_path);
    // A thread's own workspace is made by its first run; `!cmd` may come before any run.
    mkdirSync(opened.paths.workspace_path, { recursive: true });
    return opened.paths;
  }

  /**
   * One user turn: a prompt (with `@path` attachments), optionally starting a goal. While the thread has an active
   * goal, turns run through the goal loop so the goal keeps being pursued after the user answers a question.
   */
  async send(input: { prompt: string; goal?: string; skill?: string; attach?: string }, onEvent: (e: RunEvent) => void, signal: AbortSignal): Promise<TurnResult> {
    // `/name args` of a custom command (never with a skill or a goal): its `!` lines run in the thread's workspace.
    const shell = { paths: () => this.ensureThread(), settings: shellSettingsFromConfig(this.config), timeoutSeconds: this.config.sandbox.bashTimeoutSeconds, signal };
    const typed = input.attach ?? input.prompt;
    const turn = input.skill || input.goal !== undefined ? { prompt: input.prompt, attach: typed } : await promptOfTurn(input.prompt, this.commands, this.cwd, shell, typed);
    // SessionStart: the first prompt on a thread in this session (a new one, or one resumed or switched to).
    const sessionStart = this.sessionThread === this.threadId && this.sessionThread !== undefined ? undefined : this.threadId ? "resume" : "startup";
    const submitted = await submitPrompt(this.config, turn.prompt, { threadId: this.threadId, signal, sessionStart });
    this.listener = submitted.report(onEvent);
    const checkedAs: CheckedAs = {};
    const request = {
      config: this.config,
      model: this.model,
      prompt: submitted.prompt,
      skill: input.skill,
      threadId: this.threadId,
      // Only a thread's first run binds its workspace.
      workspace: this.threadId ? undefined : this.options.workspace,
      // `attach`: the part of the prompt the user wrote (an editor's embedded file is quoted material: its `@words` attach nothing).
      uploads: atPathUploads(turn.attach, this.cwd, checkedAs),
      uploadsCheckedAs: checkedAs,
      approval: this.approval,
      signal,
      onEvent: (e: RunEvent) => {
        if (e.type === "run.started") this.threadId = this.sessionThread = e.thread_id;
        this.listener?.(e);
        this.notifications.watch(e, this.listener);
      },
    };
    try {
      if (input.goal !== undefined || this.goal) {
        const g = await runGoalThread({ ...request, objective: input.goal ?? this.goal!.objective, resume: input.goal === undefined ? this.goal! : undefined, attended: true });
        this.threadId = g.result.thread_id;
        this.goal = g.goal.outcome === "achieved" ? null : await this.readGoal();
        const { messages: _m, ...result } = g.result;
        return { result, goal: g.goal };
      }
      const { messages: _m, ...result } = await runThread(request);
      return { result };
    } finally {
      this.listener = undefined;
    }
  }

  private async readGoal(): Promise<GoalState | null> {
    if (!this.threadId) return null;
    const id = this.threadId;
    return (await this.runtime.view(id, this.model)).goal;
  }

  /** /goal clear: the thread stops pursuing its goal. */
  async clearGoal(): Promise<void> {
    if (this.threadId && this.goal) await this.runtime.updateState(this.threadId, this.model, clearGoalUpdate() as Record<string, unknown>);
    this.goal = null;
  }

  /** /export [file]: the current thread to a new file (export-file.ts). */
  exportThread(file?: string) {
    if (!this.threadId) throw new UsageError("There is no thread to export yet.");
    return exportThreadToFile(this.config, this.threadId, this.cwd, file || undefined);
  }

  /** /compact [focus]: older turns summarized and archived now (null: nothing old enough yet). */
  async compact(focus?: string, onHook?: (report: HookReport) => void) {
    if (!this.threadId) return null;
    return this.runtime.compact(this.threadId, this.model, focus || undefined, onHook);
  }

  private async rewindTarget() {
    if (!this.threadId || !this.hasDatabase()) throw new UsageError("This thread has no runs to rewind yet.");
    return { home: this.config.home, store: await rewindStoreFor(this.runtime.store, this.threadId), runtime: this.runtime, threadId: this.threadId };
  }

  /** /rewind: the current thread's runs, latest first, with the files each changed. */
  async rewindable(): Promise<RewindableRun[]> {
    return listRewindable(await this.rewindTarget());
  }

  /** /rewind n [files|conversation]: back to before the nth latest run; returns what was done and the thread as it is now. */
  async rewind(back: number, scope: RewindScope): Promise<{ outcome: RewindOutcome; view: ThreadView }> {
    const target = await this.rewindTarget();
    await this.stopSandbox(scope);
    const outcome = await rewindThread(target, back, scope);
    const view = await this.runtime.view(outcome.thread_id, this.model);
    this.goal = view.goal;
    return { outcome, view };
  }

  /** /rewind undo: the last rewind put back (refused once the thread ran since); what was done and the thread now. */
  async undoRewind(): Promise<{ outcome: UndoOutcome; view: ThreadView }> {
    const target = await this.rewindTarget();
    await this.stopSandbox("files");
    const outcome = await undoRewind(target);
    const view = await this.runtime.view(outcome.thread_id, this.model);
    this.goal = view.goal;
    return { outcome, view };
  }

  /**
   * Before files are put back, nothing of the sandbox runs: a background job left from an earlier turn could swap a
   * folder for a link between rewind's check of a path and its delete by name, and have deerflow delete on the host
   * (the nineteenth adversarial pass's RW1). Its jobs end, as at the end of a chat.
   */
  private async stopSandbox(scope: RewindScope): Promise<void> {
    if (scope !== "conversation") await closeShellSessions(true);
  }

  /** /title: names the thread in the index and in its state (so the title middleware leaves it alone). */
  async setTitle(typed: string): Promise<void> {
    // Stored, listed and exported as every title is: masked.
    const title = maskCredentials(typed);
    await this.ensureThread();
    const id = this.threadId!;
    await this.runtime.updateState(id, this.model, { title });
    await this.runtime.store.threads.update(id, { title });
  }

  /**
   * `!cmd`: a shell command in the thread's workspace, as the bash tool runs it (scrubbed env, own group). The user
   * typed it, so nothing asks (not even in `ask` mode: it is the user's own edit or delete), but a blocked command
   * stays blocked: the block list is about commands nobody means to run (`rm -rf ~`, a fork bomb).
   */
  async shell(command: string, signal: AbortSignal): Promise<ShellOutput> {
    const paths = await this.ensureThread();
    const cwd = paths.workspace_path;
    const audit = await auditCommand(command);
    if (audit.verdict === "block") return { command, cwd, output: blockedMessage(audit.reason ?? "destructive command"), exitCode: undefined };
    const settings = shellSettingsFromConfig(this.config);
    let warning = "";
    setShellWarningSink((message) => (warning += `warning: ${message}\n`)); // each one: a guard can say two
    const r = await runShell(command, { cwd, paths, settings, timeoutSeconds: this.config.sandbox.bashTimeoutSeconds, signal });
    const out: ShellOutput = { command, cwd, output: warning + capOutput(r.output.replace(/\n$/, ""), SHELL_OUTPUT_MAX_CHARS), exitCode: r.exitCode, stoppedBy: r.stoppedBy };
    // Joins the conversation (the model sees it next turn); a command cancelled with esc does not.
    if (r.stoppedBy !== "abort") await this.runtime.updateState(this.threadId!, this.model, { messages: [userShellMessage(out)] });
    return out;
  }
}

/** The end of a chat: its sandbox and background jobs go. */
export async function closeChatShell(): Promise<void> {
  closeMemory();
  await Promise.all([closeShellSessions(), closeMcpServers()]);
  await ThreadRuntime.closeAll();
}

/**
 * First run: when `err` says no model is configured at all, the local servers that serve models (for the TUI's
 * picker); otherwise none, and the error stands.
 */
export async function firstRunChoices(err: unknown, opts: { home?: string } = {}): Promise<DiscoveredServer[]> {
  if ((findDeerflowError(err) as { noModel?: unknown } | undefined)?.noModel !== true) return [];
  // The endpoint the user set up (a key and/or base URL, no model) first: that is where they mean to work.
  const [own, local] = await Promise.all([ownEndpointModels(opts.home), discoverLocalServers()]);
  return [...(own ? [own] : []), ...local.filter((s) => s.models.length > 0 && s.baseUrl !== own?.baseUrl)];
}

async function ownEndpointModels(home: string | undefined): Promise<DiscoveredServer | undefined> {
  try {
    return await configuredEndpointModels(loadConfig({ flags: { home } }));
  } catch {
    return undefined; // a bad .deerflowrc: its own error stands
  }
}

/** The picked model, saved to ~/.deerflowrc as "defaultModel" (the file's other keys kept). */
export function saveFirstRunChoice(choice: ModelChoice): SavedChoice {
  return saveModelChoice(choice);
}

export function createChatSession(options: ChatSessionOptions): ChatSession {
  return new ChatSession(options);
}
