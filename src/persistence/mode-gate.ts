// Checkpoint channel-mode markers and the compatibility gate (docs/architecture.md, Checkpoints): every checkpoint records the mode it was
// written in; opening a thread in the other mode fails closed.
import type { ChannelMode } from "../vocabulary/checkpoint-modes.js";
import { DeerflowError, ExitCode } from "../errors.js";
import type { DeerflowSqliteSaver } from "./sqlite-saver.js";

/** Brand of the project's guarded saver (`Symbol.for`, so it survives duplicated module copies). */
export const GUARDED_SAVER_BRAND: unique symbol = Symbol.for("deerflow.guardedCheckpointSaver") as never;

/** Opening a thread saved in one checkpoint channel mode from a process running the other. Exit 2. */
export class CheckpointModeMismatchError extends DeerflowError {
  readonly threadId: string;
  /** The marker found on the thread's stored checkpoints ("full" when unmarked). */
  readonly storedMode: string;
  readonly requestedMode: ChannelMode;
  constructor(threadId: string, storedMode: string, requestedMode: ChannelMode) {
    super(
      `Thread ${threadId} was saved in "${storedMode}" checkpoint mode, but this process runs in "${requestedMode}" mode. ` +
        `Run with DEERFLOW_CHECKPOINT_MODE=${storedMode} (or set checkpoint.channelMode in .deerflowrc) to open it.`,
      { exitCode: ExitCode.usage },
    );
    this.threadId = threadId;
    this.storedMode = storedMode;
    this.requestedMode = requestedMode;
  }
}

/** True for the project's guarded saver (writes mode markers, enforces the mode gate). */
export function isGuardedSaver(x: unknown): x is DeerflowSqliteSaver {
  return typeof x === "object" && x !== null && (x as Record<symbol, unknown>)[GUARDED_SAVER_BRAND] === true;
}
