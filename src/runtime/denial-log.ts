// The run's refused tool calls (`permission_denials` of run.completed and the result), in order: read off the events
// the stream translation emits, which carry the refusals' structured records (sandbox/permission-denial.ts) — the
// lead's own on its `tool.completed`, a subagent's on its finished delegation (`delegation.updated`, the ledger
// entry the task tool wrote) — so the list and the event stream never disagree.
import { isTerminalDelegationStatus } from "../state/reducers/delegations.js";
import type { PermissionDenial, RunEvent, RunEventListener } from "./events.js";

export class DenialLog {
  readonly list: PermissionDenial[] = [];
  /** Delegations already counted: the ledger may be reported again, its finished entries unchanged. */
  private readonly delegations = new Set<string>();

  /** Records the denials `e` reports. */
  see(e: RunEvent): void {
    if (e.type === "tool.completed" && e.denial) this.list.push(e.denial);
    if (e.type !== "delegation.updated") return;
    for (const d of e.delegations) {
      if (!isTerminalDelegationStatus(d.status) || this.delegations.has(d.id)) continue;
      this.delegations.add(d.id);
      for (const denial of d.permission_denials ?? []) this.list.push({ ...denial, delegation_id: d.id });
    }
  }

  /** `listener` with every denial it is given also recorded here. */
  listen(listener: RunEventListener | undefined): RunEventListener {
    return (e) => {
      this.see(e);
      listener?.(e);
    };
  }
}
