// Errors the ThreadState reducers throw. A reducer throws only where the table in docs/architecture.md (the thread state) says a
// write must fail closed: the graph step fails instead of silently picking a value.
import { DeerflowError } from "../errors.js";

/** Two different sandbox ids were written to one thread: a lifecycle/isolation bug. */
export class SandboxConflictError extends DeerflowError {
  readonly existingId: string | null;
  readonly incomingId: string | null;
  constructor(existingId: string | null, incomingId: string | null) {
    super(`Conflicting sandbox state: the thread is bound to sandbox ${JSON.stringify(existingId)}, ` + `but a write tried to set sandbox ${JSON.stringify(incomingId)}.`, {
      hint: "One thread has one sandbox; acquire it once per thread and reuse its id.",
    });
    this.existingId = existingId;
    this.incomingId = incomingId;
  }
}

/** A RemoveMessage targeted an id that is not in the thread's messages. */
export class MessageRemovalError extends DeerflowError {
  readonly messageId: string;
  constructor(messageId: string) {
    super(`Cannot remove message ${JSON.stringify(messageId)}: no message with this id is in the thread state.`, {
      hint: "RemoveMessage must target the id of an existing message (use REMOVE_ALL_MESSAGES to clear all).",
    });
    this.messageId = messageId;
  }
}

/** One step wrote a one-writer field (title, thread_data) twice with different values. */
export class DoubleWriteError extends DeerflowError {
  readonly field: string;
  constructor(field: string, first: unknown, second: unknown) {
    const show = (v: unknown) => {
      const s = JSON.stringify(v) ?? String(v);
      return s.length > 200 ? `${s.slice(0, 199)}…` : s;
    };
    super(`Two different writes of "${field}" in one step (${show(first)} and ${show(second)}); one step may write ${field} once.`, {
      hint: `Write ${field} from one node or tool per step.`,
    });
    this.field = field;
  }
}
