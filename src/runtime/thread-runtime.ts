// The per-home runtime (docs/architecture.md): opens the store once per process, compiles graphs once
// (a state graph for reads and writes, one run graph per model/approval setup), and owns the run lifecycle:
//   pending (waiting for the thread's lock) → running → success | error | timeout | interrupted
// `begin` and `settle` are the only places a run's record and its thread's status change, and `run` pairs them in
// one try/finally, so no path leaves a run `running`. Failed runs are rolled back to the mark taken at `begin`;
// when the store itself cannot write (disk full, the team database gone), the rollback is remembered outside the
// store and done on next open.
import { assertAutoApprovalWorkspace } from "../sandbox/workspace-check.js";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { ResolvedConfig, ResolvedModel } from "../config/load.js";
import { DatabaseCorruptError, DeerflowError, ExitCode, RunStoppedError, type StoreWriteOutcome, formatErrorLine, runStatusOf } from "../errors.js";
import { type Store, isCorruption, isStoreWriteFailure, notePendingRollback } from "../persistence/store.js";
import { openStore } from "../persistence/open-store.js";
import { isConnectionFault } from "../persistence/postgres-connection.js";
import { machineName } from "../persistence/machine.js";
import type { RollbackMark } from "../persistence/sqlite-saver.js";
import { runConfigurable } from "../vocabulary/configurable.js";
import type { CompactionInfo } from "../vocabulary/compaction-notice.js";
import { setShellWarningSink, warmShell } from "../sandbox/run-shell.js";
import { shellSettingsFromConfig } from "../sandbox/shell-settings.js";
import type { RunEvent, TokenUsage } from "./events.js";
import type { HookReport } from "../hooks/run-hooks.js";
import { RunUsage, carryMemorySpending, noteFailedRunUsage } from "./run-usage.js";
import { addUsage } from "../vocabulary/token-usage.js";
import { type OpenThreadRequest, type OpenedThread, newId, openThread } from "./open-thread.js";
import { type LeadAgent, type RunAgentSpec, approvalOf, buildRunAgent, buildStateAgent, compactionOf, modelWindowOf, runAgentKey, withRunContext } from "./run-agent.js";
import { compactMessages } from "../middleware/summarization.js";
import { redactorFor } from "../middleware/util/pii-messages.js";
import { createChatModel } from "../config/model-factory.js";
import type { RunRequest, RunResult } from "./run-thread.js";
import { translateStream } from "./stream-events.js";
import { leaseLostIn, watchLease } from "./lease-watch.js";
import { inputLine, snapshotAfterRun, snapshotBeforeRun } from "./workspace-snapshots.js";
import { ToolWatch } from "./tool-watch.js";
import { OnModelAnswer } from "./on-model-answer.js";
import { toolCallLog } from "./tool-call-log.js";
import { typedStoreError } from "./store-errors.js";
import { loggedRun, withEventLog } from "./run-event-log.js";
import { finishInterruptedRewind } from "./rewind.js";
import { rewindText } from "../vocabulary/rewind-text.js";
import { skillCatalogFor, skillMounts } from "../skills/catalog.js";
import { type ThreadValues, inputMessageId, recordedInput, repeatedRun, resultOf, startedInput, userActivation } from "./run-input.js";
import { DenialLog } from "./denial-log.js";
import { isStepLimit, runSignal, runStepLimit, stepLimitError, tookTimeLimit } from "./run-limits.js";
import { type ThreadView, threadViewOf } from "./thread-view.js";
import { StreamedAnswer, keepInterruptedWork } from "./interrupted-turn.js";
import { PresentedFiles } from "./presented-files.js";
import { clearFailedRunFiles, failedRunReminder, filesChangedSince, noteFailedRunFiles } from "./failed-run-files.js";

const runtimes = new Map<string, ThreadRuntime>();

export class ThreadRuntime {
  readonly store: Store;
  private readonly config: ResolvedConfig;
  private readonly runAgents = new Map<string, Promise<LeadAgent>>();
  private readonly sharedAgents = new WeakMap<NonNullable<RunAgentSpec["approval"]>, Map<string, Promise<LeadAgent>>>();
  private stateAgent: LeadAgent | undefined;

  /** The runtime of `config.home` in this process (opened on first use). */
  static for(config: ResolvedConfig): ThreadRuntime {
    const key = `${config.home}\0${config.checkpoint.channelMode}\0${config.database ?? ""}`;
    let rt = runtimes.get(key);
    if (!rt) runtimes.set(key, (rt = new ThreadRuntime(config)));
    return rt;
  }

  /** Closes every runtime of this process (the CLI's exit, tests). */
  static async closeAll(): Promise<void> {
    const stores = [...runtimes.values()].map((rt) => rt.store);
    runtimes.clear();
    await Promise.all(stores.map((s) => Promise.resolve(s.close()).catch(() => {})));
  }

  private constructor(config: ResolvedConfig) {
    this.config = config;
    this.store = openStore({ home: config.home, channelMode: config.checkpoint.channelMode, database: config.database });
  }

  /**
   * The runtime a thread is worked in: an existing thread in the mode it was written in (docs/configuration.md, DEERFLOW_CHECKPOINT_MODE), unless the user
   * chose a mode (then this one, and the gate refuses a thread of the other mode). New threads: this one.
   */
  async forThread(threadId: string | undefined, latest = false): Promise<ThreadRuntime> {
    if (this.config.checkpoint.explicitMode || (!threadId && !latest)) return this;
    const row = threadId ? await this.store.threads.get(threadId) : await this.store.threads.latest();
    if (!row || row.mode === this.config.checkpoint.channelMode) return this;
    return ThreadRuntime.for({ ...this.config, checkpoint: { ...this.config.checkpoint, channelMode: row.mode } });
  }

  /** `openThread` in the thread's runtime (see `forThread`). */
  async open(req: Omit<OpenThreadRequest, "home" | "mode">): Promise<{ runtime: ThreadRuntime; opened: OpenedThread }> {
    const runtime = await this.forThread(req.threadId, req.continueLatest);
    const opened = await openThread(runtime.store, { ...req, home: runtime.config.home, mode: runtime.config.checkpoint.channelMode });
    return { runtime, opened };
  }

  // ---------------------------------------------------------------------------------------------
  // Thread state outside runs

  private stateGraph(model: ResolvedModel | null): LeadAgent {
    return (this.stateAgent ??= buildStateAgent(this.config, model, this.store.saver));
  }

  async readState(threadId: string, model: ResolvedModel | null): Promise<ThreadValues> {
    const rt = await this.forThread(threadId);
    if (rt !== this) return rt.readState(threadId, model);
    const snapshot = await this.stateGraph(model).graph.getState({ configurable: { thread_id: threadId } });
    return (snapshot.values ?? {}) as ThreadValues;
  }

  /** One state write on an existing thread, under its run lock (e.g. a goal decision, /title, /goal clear). */
  async updateState(threadId: string, model: ResolvedModel, update: Record<string, unknown>): Promise<void> {
    const rt = await this.forThread(threadId);
    if (rt !== this) return rt.updateState(threadId, model, update);
    try {
      const lockId = newId("state-");
      await this.lock(threadId, lockId);
      try {
        await this.stateGraph(model).graph.updateState({ configurable: { thread_id: threadId } }, update as never);
      } finally {
        await this.release(threadId, lockId);
      }
    } catch (err) {
      throw this.typedStoreError(err, "nothing-changed");
    }
  }

  /** `/compact [focus]`: summarize and archive the older turns now. Null when there is nothing old enough to compact. */
  /** `onHook`: the PreCompact hooks' runs (there is no run to report them on). */
  async compact(threadId: string, model: ResolvedModel, focus?: string, onHook?: (report: HookReport) => void): Promise<CompactionInfo | null> {
    const rt = await this.forThread(threadId);
    if (rt !== this) return rt.compact(threadId, model, focus, onHook);
    const opts = compactionOf({ config: this.config, model, window: await modelWindowOf(model) }, this.store.archive, true)!;
    const values = (await this.readState(threadId, model)) as Record<string, unknown>;
    // In a run's context of its own: the PreCompact hooks' reports reach `onHook`.
    const emit = (e: RunEvent) => (e.type === "hook.run" ? onHook?.(e) : undefined);
    const compacting = () =>
      compactMessages(
        { ...opts, model: createChatModel(model, { streaming: false }), onCompacted: undefined },
        {
          messages: (values.messages ?? []) as BaseMessage[],
          summary: (values.summary_text as string | null) ?? null,
          history: (values.task_history as Record<string, unknown> | null) ?? null,
          threadId,
          checkpointId: null,
          focus,
          trigger: "manual",
          usage: { thread_usage: (values.thread_usage as never) ?? null },
        },
      );
    const done = await withRunContext(newId("compact-"), emit, compacting);
    if (!done) return null;
    await this.updateState(threadId, model, done.update as Record<string, unknown>);
    return done.info;
  }

  async view(threadId: string, model: ResolvedModel | null): Promise<ThreadView> {
    const thread = await this.store.threads.get(threadId);
    if (!thread) throw new DeerflowError(`Thread ${threadId} not found.`, { exitCode: ExitCode.usage, hint: "List threads with `deerflow threads`." });
    return threadViewOf(thread, await this.readState(threadId, model));
  }

  // ---------------------------------------------------------------------------------------------
  // Runs

  async run(req: RunRequest): Promise<RunResult> {
    try {
      const rt = await this.forThread(req.threadId, req.continueLatest);
      // The run's graphs are built from its config: the thread's mode goes with it.
      if (rt !== this) return await rt.run({ ...req, config: rt.config });
      return await loggedRun(req.threadId, () => this.runOnce({ ...req, onEvent: withEventLog(req.onEvent) }));
    } catch (err) {
      // A store fault before the run began (creating the thread, its run record, the lock) changed nothing.
      throw this.typedStoreError(err, "nothing-changed");
    }
  }

  private typedStoreError(err: unknown, outcome: StoreWriteOutcome): unknown {
    return typedStoreError(err, outcome, { database: this.config.database, storePath: this.store.path });
  }

  /** Drops the thread's lock. If even that cannot be written, the lock names a process that is about to be gone: the next open reaps it. */
  private async release(threadId: string, lockId: string): Promise<void> {
    try {
      await this.store.runs.release(threadId, lockId);
    } catch (err) {
      // A team database that is gone: the lease expires on its own and the next run takes the thread over.
      if (!isStoreWriteFailure(err) && !isConnectionFault(err)) throw err;
    }
  }

  private async runOnce(req: RunRequest): Promise<RunResult> {
    const emit = req.onEvent ?? (() => {});
    const { threadId, continueLatest, workspace, uploads, uploadsCheckedAs } = req;
    const opened = await openThread(this.store, { home: this.config.home, mode: this.config.checkpoint.channelMode, threadId, continueLatest, workspace, uploads, uploadsCheckedAs });
    // A continued thread's workspace is known only now (the front ends check a new one before anything is made).
    assertAutoApprovalWorkspace(opened.paths.workspace_path, this.config.home, req.approveGuarded === true || (req.approval?.mode ?? this.config.approval) === "yolo");
    const repeat = req.inputId && !opened.isNew ? repeatedRun(await this.readState(opened.threadId, req.model), opened, { ...req, inputId: req.inputId }) : undefined;
    if (repeat) {
      const { answered, ...result } = repeat;
      if (answered) await this.recordAnswered(opened.threadId, req, result);
      return result;
    }
    const runId = newId("run-");
    const usage = new RunUsage();
    const billed = carryMemorySpending(this.config, opened.threadId, usage);
    const input = inputLine(req.prompt);
    const mark = await this.begin(opened.threadId, runId, input);
    const lease = watchLease(this.store, opened.threadId, runId, req.signal);
    const tools = new ToolWatch();
    let before: string | undefined;
    let snapshot: Promise<unknown> = Promise.resolve();
    const snapshotEnd = this.endSnapshot(opened, runId, lease, () => (tools.started ? undefined : before));
    const streamed = new StreamedAnswer();
    const presented = new PresentedFiles();
    let settled = false;
    try {
      emit({ type: "run.started", thread_id: opened.threadId, run_id: runId, new_thread: opened.isNew, workspace: opened.paths.workspace_path });
      // Done while the agent is built (and its MCP servers start); the graph waits for it before its first step.
      snapshot = this.filesBefore(opened, runId, emit).then((commit) => (before = commit));
      snapshot.catch(() => {}); // awaited by execute: a failure is the run's, not an unhandled rejection
      const onEvent = presented.listen(streamed.listen(req.onEvent));
      const result = await withRunContext(runId, emit, () => this.execute({ ...req, signal: lease.signal, onEvent }, opened, runId, usage, tools, snapshot), usage);
      result.files = presented.files;
      // Found taken over after its last write: the thread's status is the new owner's to set.
      const lost = lease.lost();
      if (lost) throw lost;
      await this.settleSuccess(result);
      settled = true;
      billed();
      await this.pruneCheckpoints(opened.threadId);
      // Before run.completed: a client may rewind as soon as it sees it, and the thread is locked until this is done.
      await snapshotEnd();
      emit({
        type: "run.completed",
        thread_id: result.thread_id,
        run_id: runId,
        status: result.status,
        stop_reason: result.stop_reason,
        final_text: result.final_text,
        usage: result.usage,
        thread_usage: result.thread_usage,
        permission_denials: result.permission_denials,
      });
      return result;
    } catch (err) {
      settled = true;
      // A run that failed while it was being built: its snapshot is finished (or failed) before anything reads `before`.
      await snapshot.catch(() => {});
      // Rolled back: the files it changed stay (failed-run-files.ts); the user sees which, the next run is told.
      const keepFiles = async () => {
        await snapshotEnd();
        if (before && tools.started) await this.keepFailedRunFiles(opened, runId, before, emit);
      };
      const failure = await this.settleFailure(opened.threadId, runId, mark, lease.lost() ?? err, usage.total, req, streamed.partial, keepFiles);
      noteFailedRunUsage(failure, usage.total, await this.threadUsageAfterFailure(opened.threadId, req, usage.total, failure));
      throw failure;
    } finally {
      lease.dispose();
      await snapshot.catch(() => {});
      if (!settled) await this.settleFailure(opened.threadId, runId, mark, new Error("the run ended without a result"), usage.total, req);
      await snapshotEnd();
      await this.release(opened.threadId, runId);
    }
  }

  /**
   * A retried input whose first run was killed after its answer but before its result was recorded: the result is
   * recorded now, so later repeats read it. Best effort: when it cannot be written (the thread is busy), the next repeat
   * reads the answer from the thread again.
   */
  private async recordAnswered(threadId: string, req: RunRequest, r: RunResult): Promise<void> {
    try {
      await this.updateState(threadId, req.model, recordedInput(await this.readState(threadId, req.model), req.inputId!, req.prompt, r));
    } catch {
      // see above
    }
  }

  /** Takes the thread's lock; a live holder refuses the caller. */
  private async lock(threadId: string, lockId: string): Promise<void> {
    const lock = await this.store.runs.acquire(threadId, lockId);
    if (lock.ok) return;
    const h = lock.holder;
    const where = h.host === machineName() ? `pid ${h.pid}` : `pid ${h.pid} on ${h.host}`;
    throw new DeerflowError(`Thread ${threadId} is busy: run ${h.run_id} (${where}) has been working on it since ${h.started_at}.`, {
      exitCode: ExitCode.runtime,
      hint: "Wait for it to finish, or start another thread.",
    });
  }

  /** A rewind killed half way is finished first (the run must not start from half-rewound files), then the snapshot. */
  private async filesBefore(opened: OpenedThread, runId: string, emit: (e: RunEvent) => void): Promise<string | undefined> {
    const finished = await finishInterruptedRewind({ home: this.config.home, store: this.store, runtime: this, threadId: opened.threadId });
    if (finished) emit({ type: "snapshot.warning", run_id: runId, message: rewindText(finished).trim() });
    return this.snapshotFiles(opened, runId, emit);
  }

  /** The workspace's files before the run, for rewind (recorded with the run; a failure only warns). */
  private async snapshotFiles(opened: OpenedThread, runId: string, emit: (e: RunEvent) => void): Promise<string | undefined> {
    const snap = await snapshotBeforeRun(this.config.home, opened.threadId, opened.paths.workspace_path, runId);
    if (snap.commit) await this.store.runs.setSnapshot(runId, snap.commit);
    if (snap.warning) emit({ type: "snapshot.warning", run_id: runId, message: snap.warning });
    return snap.commit;
  }

  /**
   * The files as the run left them, taken once whichever way it ended: what changes after this is the user's, and a
   * rewind leaves it alone. Not when another process took the thread over: the files are that run's now.
   * `untouched`: the run's snapshot from before, when it started no tool (the files are as it found them).
   */
  private endSnapshot(opened: OpenedThread, runId: string, lease: { lost(): unknown }, untouched: () => string | undefined): () => Promise<void> {
    let taken = false;
    return async () => {
      if (taken || lease.lost()) return;
      taken = true;
      await snapshotAfterRun(this.config.home, opened.threadId, opened.paths.workspace_path, runId, untouched());
    };
  }

  /**
   * Runs `work` holding the thread's lock (refused with "busy" while a run or another command holds it): rewind,
   * `threads rm`.
   */
  async withThreadLock<T>(threadId: string, work: () => Promise<T>): Promise<T> {
    const lockId = newId("lock-");
    await this.lock(threadId, lockId);
    try {
      return await work();
    } finally {
      await this.release(threadId, lockId);
    }
  }

  /** pending → (lock) → running. Returns the mark a failure rolls back to. */
  private async begin(threadId: string, runId: string, input: string | null): Promise<RollbackMark> {
    const { runs, threads, saver } = this.store;
    await runs.create(runId, threadId);
    try {
      await this.lock(threadId, runId);
    } catch (err) {
      await runs.finish(runId, { status: "error", stop_reason: "error", error: formatErrorLine(err) });
      throw err;
    }
    // Everything this run stores comes after this mark.
    const mark = await saver.mark();
    await runs.start(runId, mark, input);
    await threads.update(threadId, { status: "running", host: machineName() });
    return mark;
  }

  /**
   * After a good run (still under the thread's lock): the thread's step checkpoints that rollback and rewind cannot
   * go back to are slimmed (policy: persistence/checkpoint-prune.ts). A failure costs only disk and is retried after the
   * next run, so it never fails the run that already succeeded.
   */
  private async pruneCheckpoints(threadId: string): Promise<void> {
    const saver = this.store.saver;
    if (!saver.prune) return;
    try {
      const marks = (await this.store.runs.forThread(threadId)).flatMap((r) => (r.mark ? [JSON.parse(r.mark) as RollbackMark] : []));
      await saver.prune(threadId, marks);
    } catch {
      // see above
    }
  }

  /** The files a rolled-back run changed: noted for the next run's reminder, and shown to the user. */
  private async keepFailedRunFiles(opened: OpenedThread, runId: string, before: string, emit: (e: RunEvent) => void): Promise<void> {
    const files = await filesChangedSince(this.config.home, opened.threadId, opened.paths.workspace_path, before);
    if (files.length === 0) return;
    noteFailedRunFiles(this.config.home, opened.threadId, files);
    emit({ type: "files.kept", run_id: runId, files: files.map((f) => join(opened.paths.workspace_path, f)) });
  }

  private async settleSuccess(r: RunResult): Promise<void> {
    await this.store.threads.update(r.thread_id, { status: r.clarification ? "input_required" : "success", title: r.title });
    await this.store.runs.finish(r.run_id, { status: "success", stop_reason: r.stop_reason, input_tokens: r.usage.input_tokens, output_tokens: r.usage.output_tokens });
    clearFailedRunFiles(this.config.home, r.thread_id);
  }

  /** Records how the run ended and returns the error the caller sees (typed, one line). */
  private async settleFailure(
    threadId: string,
    runId: string,
    mark: RollbackMark,
    err: unknown,
    usage: TokenUsage,
    req: RunRequest,
    partial = "",
    afterRollback?: () => Promise<void>,
  ): Promise<unknown> {
    // Another run owns the thread now (it marked this one interrupted): write nothing, least of all a rollback.
    const lost = leaseLostIn(err);
    if (lost) return lost;
    const stopped = this.stoppedError(err, runId, threadId, req);
    const status = stopped ? stopped.status : runStatusOf(err);
    const tokens = { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens };
    if (stopped || status !== "error") {
      // Interrupted or timed-out work is kept (the user may want it); DanglingToolCall mends a cut tool call next run.
      try {
        if (stopped?.status === "interrupted") await keepInterruptedWork(this.stateGraph(req.model).graph, threadId, runId, partial);
        await this.store.runs.finish(runId, { status, stop_reason: status, ...tokens });
        await this.store.threads.update(threadId, { status });
      } catch (storeErr) {
        // Not recorded: the next open sees a dead process's run and marks it interrupted, which is what it was.
        if (!isStoreWriteFailure(storeErr) && !isConnectionFault(storeErr)) throw storeErr;
      }
      return stopped ?? err;
    }
    const typed = isCorruption(err) ? new DatabaseCorruptError(this.store.path, (err as Error).message) : isStepLimit(err) ? stepLimitError(threadId) : err;
    try {
      // A failed run leaves the thread exactly as after the last good run.
      await this.store.saver.rollbackTo(threadId, mark);
      await this.store.runs.finish(runId, { status: "error", stop_reason: "error", error: formatErrorLine(typed), ...tokens });
      await this.store.threads.update(threadId, { status: "error" });
      await afterRollback?.();
      return isStoreWriteFailure(err) || isConnectionFault(err) ? this.typedStoreError(err, "rolled-back") : typed;
    } catch (storeErr) {
      if (isCorruption(storeErr)) return new DatabaseCorruptError(this.store.path, (storeErr as Error).message);
      if (!isStoreWriteFailure(storeErr) && !isConnectionFault(storeErr)) throw storeErr;
      // The store cannot take even the rollback (disk still full): remember it outside SQLite, undo at next open.
      notePendingRollback(this.config.home, runId, this.store.path);
      return this.typedStoreError(isStoreWriteFailure(err) ? err : storeErr, "rollback-pending");
    }
  }

  private stoppedError(err: unknown, runId: string, threadId: string, req: RunRequest): RunStoppedError | undefined {
    if (err instanceof RunStoppedError) return err;
    if (tookTimeLimit(runId)) {
      return new RunStoppedError(
        "timeout",
        `Run ${runId} on thread ${threadId} stopped after its time limit of ${req.timeoutSeconds} s.`,
        `Continue with \`deerflow run --thread ${threadId} "…"\`, or allow more time with --timeout.`,
      );
    }
    if (req.signal?.aborted) {
      return new RunStoppedError("interrupted", `Run ${runId} on thread ${threadId} was interrupted.`, `Continue with \`deerflow run --thread ${threadId} "…"\`.`);
    }
    return undefined;
  }

  private async agentFor(req: RunAgentSpec, paths: OpenedThread["paths"]): Promise<LeadAgent> {
    // The window compaction goes by: configured, else learned from the model's server (once per process), else the default.
    const spec: RunAgentSpec = { ...req, window: await modelWindowOf(req.model) };
    const approval = approvalOf(spec);
    const key = runAgentKey(spec, approval);
    const cache = this.agentsOf(req.approval);
    let agent = cache.get(key);
    if (!agent) {
      agent = buildRunAgent(spec, approval, { saver: this.store.saver, archive: this.store.archive }, paths);
      cache.set(key, agent);
      // A setup failure (a malformed agents/*.md) is not cached: the next run reads the files again.
      agent.catch(() => cache.delete(key));
    }
    return agent;
  }

  /**
   * Where graphs are kept: a shared approval (a chat's, an editor session's) keeps its own, held only as long as the
   * session holds it — two sessions of `deerflow acp` each get graphs whose approvals reach their own client, and a
   * closed session's graphs go with it.
   */
  private agentsOf(approval: RunAgentSpec["approval"]): Map<string, Promise<LeadAgent>> {
    if (!approval) return this.runAgents;
    let own = this.sharedAgents.get(approval);
    if (!own) this.sharedAgents.set(approval, (own = new Map()));
    return own;
  }

  /**
   * The thread's tokens after a failed run, this run's included. A rolled-back run's work is gone from the thread's
   * state, its tokens with it, so they are added to what the state holds; interrupted and timed-out work is kept
   * (the state already counts it). Null when the store cannot be read (another owner, a broken store).
   */
  private async threadUsageAfterFailure(threadId: string, req: RunRequest, usage: TokenUsage, failure: unknown): Promise<TokenUsage | null> {
    if (leaseLostIn(failure)) return null;
    try {
      const kept = (await this.readState(threadId, req.model)).thread_usage as TokenUsage | undefined;
      return runStatusOf(failure) === "error" ? addUsage(kept, usage) : (kept ?? usage);
    } catch {
      return null;
    }
  }

  /** `filesTaken`: the workspace's snapshot before the run, which the graph waits for (nothing may change the files first). */
  private async execute(req: RunRequest, opened: OpenedThread, runId: string, usage: RunUsage, tools: ToolWatch, filesTaken: Promise<unknown>): Promise<RunResult> {
    const agent = await this.agentFor(req, opened.paths);
    await filesTaken;
    const { threadId } = opened;
    const skills = skillCatalogFor({ home: this.config.home, cwd: process.cwd() });
    const shell = { ...shellSettingsFromConfig(this.config), skillDirs: skillMounts(skills) };
    // Once the model has begun to answer: the session's set-up is ~0.1-0.3 s of synchronous work (git lookups, the
    // bubblewrap command line), which, started any earlier, sat between the run's start and its first request.
    // Only while the stream runs: an instant answer can end the run (and close its sessions) before the warm-up's
    // turn comes, and a session started then would keep the process alive.
    let streaming = true;
    const warm = new OnModelAnswer(() => {
      if (streaming && !signal.signal?.aborted) warmShell(opened.paths, shell);
    });
    const config = {
      configurable: runConfigurable({ threadId, home: this.config.home, runId, uploads: opened.uploaded, threadData: opened.paths, unattended: req.unattended ?? false, shell }),
    };
    if (req.initialState) await agent.graph.updateState(config, req.initialState as never);
    const prompt = typeof req.prompt === "string" ? new HumanMessage({ content: req.prompt, id: inputMessageId(req.inputId, runId) }) : req.prompt;
    const input = userActivation(skills, req.skill, prompt, runId);
    const reminder = failedRunReminder(this.config.home, threadId, runId);
    if (reminder) input.messages = [reminder, ...(input.messages as unknown[])];
    // The input id goes into the input's own checkpoint write, with the user's message: no kill can separate them.
    if (req.inputId) Object.assign(input, startedInput((await agent.graph.getState(config)).values as ThreadValues, req.inputId, req.prompt, runId));
    const signal = runSignal(req, runId);
    const denials = new DenialLog();
    setShellWarningSink((message) => req.onEvent?.({ type: "sandbox.warning", message }));
    try {
      // LangGraph's default ("async") saves a step's checkpoint while the next step already runs. SQLite's writes are
      // done before the next step can reach the network, but the team database's take round trips: a process killed
      // right after the model got the request lost the steps that held the user's question (it lived only as the
      // input's pending write, which the next input discards). So on Postgres each step waits for its checkpoint.
      const durability = this.store.kind === "postgres" ? "sync" : "async";
      const stream = await agent.stream(
        input as never,
        { ...config, streamMode: ["messages", "updates"], signal: signal.signal, recursionLimit: runStepLimit(), durability, callbacks: [tools, warm, ...toolCallLog()] } as never,
      );
      // With piiRedaction the model streams placeholders: the user sees the values (the stored answer has them too).
      const restore = this.config.piiRedaction ? redactorFor(threadId).restore : undefined;
      await translateStream(stream as AsyncIterable<[string, unknown]>, runId, (call) => usage.add("lead", call), denials.listen(req.onEvent), { restore, mounts: opened.paths });
    } finally {
      streaming = false;
      signal.dispose();
    }
    const values = (await agent.graph.getState(config)).values as ThreadValues;
    const result = resultOf(values, threadId, runId, usage.total, denials.list);
    if (result.clarification) req.onEvent?.({ type: "clarification.requested", run_id: runId, clarification: result.clarification });
    if (req.inputId) await agent.graph.updateState(config, recordedInput(values, req.inputId, req.prompt, result) as never);
    return result;
  }
}
