// The run's refused tool calls (`permission_denials` of run.completed and the result), in order: read off the
// `tool.completed` events the stream translation emits, which carry the refusal's structured record
// (sandbox/permission-denial.ts), so the list and the event stream never disagree.
import type { PermissionDenial, RunEventListener } from "./events.js";

export class DenialLog {
  readonly list: PermissionDenial[] = [];

  /** `listener` with every denial it is given also recorded here. */
  listen(listener: RunEventListener | undefined): RunEventListener {
    return (e) => {
      if (e.type === "tool.completed" && e.denial) this.list.push(e.denial);
      listener?.(e);
    };
  }
}
