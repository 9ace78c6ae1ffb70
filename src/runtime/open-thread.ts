// Before a run: which thread (new, named, or the latest), where it works (a fresh per-thread workspace or one bound
// with --workspace, which later runs reuse), and which files the user attached (copied into its uploads/).
// Every problem here is found before the model is called and is reported with what to do.
import { existsSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename } from "node:path";
import { randomBytes } from "node:crypto";
import type { ChannelMode } from "../vocabulary/checkpoint-modes.js";
import { DeerflowError, ExitCode, UsageError } from "../errors.js";
import { CheckpointModeMismatchError } from "../persistence/sqlite-saver.js";
import type { Store } from "../persistence/store.js";
import { machineName } from "../persistence/machine.js";
import { LocalSandboxProvider } from "../sandbox/local-provider.js";
import { hostSecretReason } from "../sandbox/host-secrets.js";
import { HostWriteError, hostWriteFile } from "../sandbox/host-write.js";
import { type ThreadPaths, assertSafeThreadId } from "../sandbox/provider.js";
import { pinFolder } from "../sandbox/pinned-folders.js";
import { boundFolderProblem, replaceableBy, replaceableFolderLine } from "../sandbox/replaceable-folders.js";

export interface OpenThreadRequest {
  home: string;
  mode: ChannelMode;
  threadId?: string;
  continueLatest?: boolean;
  /** Bind a new thread's workspace to this existing directory. */
  workspace?: string;
  /** Host files to copy into the thread's uploads/. */
  uploads?: string[];
  /** The real path each upload was checked as by the front end; the copy must open that very file. */
  uploadsCheckedAs?: Record<string, string>;
  /** Only to inspect it (resume's view): a thread whose workspace is on another machine may be opened. */
  readOnly?: boolean;
}

export interface OpenedThread {
  threadId: string;
  isNew: boolean;
  paths: ThreadPaths;
  /** File names copied into uploads/ for this run. */
  uploaded: string[];
}

export function newId(prefix = ""): string {
  return prefix + randomBytes(6).toString("hex");
}

function realDir(dir: string, what: string): string {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`${what} ${dir} is not an existing directory.`);
  return realpathSync(dir);
}

/**
 * The run's workspace, refused when another user could swap it for a link between runs or during one (A45a-1), and,
 * when `bound` (a folder of the user's, kept by its real path), when it now leads elsewhere: a link was put in its
 * place (A46a-3). The thread's own folder is named under the data directory, which may itself be reached through a
 * link. What the run will use by its path from now on is pinned (sandbox/pinned-folders.ts).
 */
function holdWorkspace(workspace: string, bound: boolean): void {
  const why = bound ? boundFolderProblem(workspace) : replaceableBy(workspace);
  if (why) throw new UsageError(replaceableFolderLine(`The workspace ${workspace}`, why));
  pinFolder(workspace);
}

/**
 * Every attachment must be an existing file that is not a secret: the whole run is refused (exit 2, before any
 * thread is made) rather than the file silently dropped, because `@~/.ssh/id_rsa` is usually typed on purpose
 * and the user should learn it was not sent, and why.
 */
function checkUploads(files: readonly string[], home: string, checkedAs: Record<string, string>): Record<string, string> {
  const real: Record<string, string> = {};
  for (const file of files) {
    if (!existsSync(file) || !statSync(file).isFile()) throw new UsageError(`Cannot attach ${file}: not an existing file.`);
    // One real path for every check and for the copy (a link swapped in between is refused by hostWriteFile).
    real[file] = checkedAs[file] ?? realpathSync(file);
    const secret = hostSecretReason(file, { userHome: process.env.HOME ?? homedir(), dataDir: home }) ?? hostSecretReason(real[file]!, { userHome: process.env.HOME ?? homedir(), dataDir: home });
    if (secret) {
      throw new UsageError(`Refusing to attach ${file}: it ${secret}, so it is never copied to the agent.`, "Drop it from --upload or the @path in the prompt.");
    }
  }
  return real;
}

export async function openThread(store: Store, req: OpenThreadRequest): Promise<OpenedThread> {
  const checkedAs = checkUploads(req.uploads ?? [], req.home, req.uploadsCheckedAs ?? {});
  const provider = new LocalSandboxProvider(req.home);
  let threadId = req.threadId;
  if (req.continueLatest && !threadId) {
    const latest = await store.threads.latest();
    if (!latest) throw new UsageError("There is no thread to continue yet.", 'Start one with `deerflow run "…"`.');
    threadId = latest.id;
  }

  let isNew = false;
  let paths: ThreadPaths;
  if (threadId) {
    try {
      assertSafeThreadId(threadId);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const row = await store.threads.get(threadId);
    if (!row) throw new UsageError(`Thread ${threadId} not found.`, "List threads with `deerflow threads`.");
    if (row.mode !== req.mode) throw new CheckpointModeMismatchError(threadId, row.mode, req.mode);
    if (row.status === "lost" && !req.readOnly) {
      throw new UsageError(
        `Thread ${threadId}'s history was lost when \`deerflow doctor --repair\` rebuilt the database; it cannot be continued.`,
        "Start a new thread, or put back the backup the repair made (deerflow.sqlite.corrupt-…) to recover it.",
      );
    }
    const own = provider.pathsFor(threadId);
    const bound = row.workspace ?? own.workspace_path;
    if (req.readOnly) return { threadId, isNew: false, paths: { ...own, workspace_path: bound }, uploaded: [] };
    if (row.host && row.host !== machineName() && !existsSync(bound)) {
      // Its files are on that machine: running here would start over in an empty directory.
      throw new UsageError(
        `Thread ${threadId} last ran on ${row.host}; its workspace ${bound} is there, not on this machine (${machineName()}).`,
        `Continue it on ${row.host}; here you can inspect it with \`deerflow threads show ${threadId}\`.`,
      );
    }
    if (req.workspace && realDir(req.workspace, "The workspace") !== bound) {
      throw new UsageError(`Thread ${threadId} works in ${bound}.`, "Drop --workspace to continue it there, or start a new thread for the other directory.");
    }
    if (bound !== own.workspace_path && !(existsSync(bound) && statSync(bound).isDirectory())) {
      // Never silently start over in a fresh directory: the user's files were there.
      throw new DeerflowError(`The workspace ${bound} of thread ${threadId} no longer exists (moved or deleted).`, {
        exitCode: ExitCode.usage,
        hint: "Restore or move it back, or start a new thread with --workspace <dir>.",
      });
    }
    paths = { ...own, workspace_path: bound };
  } else {
    threadId = newId();
    isNew = true;
    const own = provider.pathsFor(threadId);
    paths = req.workspace ? { ...own, workspace_path: realDir(req.workspace, "The workspace") } : own;
    await store.threads.create({ id: threadId, mode: req.mode, workspace: paths.workspace_path });
  }

  holdWorkspace(paths.workspace_path, paths.workspace_path !== provider.pathsFor(threadId).workspace_path);
  const uploaded: string[] = [];
  for (const file of req.uploads ?? []) {
    // Only the base name is kept, so an upload can never be placed outside uploads/.
    const name = basename(file);
    // uploads/ is writable inside the sandbox: a link planted there is replaced, never written through.
    try {
      await hostWriteFile({ base: req.home, dir: paths.uploads_path, name }, { copyFrom: file, checkedAs: checkedAs[file] });
    } catch (err) {
      if (!(err instanceof HostWriteError)) throw err;
      throw new UsageError(`Cannot attach ${file}: ${err.message}`, `Look at ${paths.uploads_path} (remove the link), then run again.`);
    }
    if (!uploaded.includes(name)) uploaded.push(name);
  }
  return { threadId, isNew, paths, uploaded };
}
