// The refused tool calls a `deerflow run` reports (`permission_denials`): gathered from the event stream across the
// command's runs (a goal runs several), and said in text mode as one line on stderr at the end.
import { DenialLog } from "../../runtime/denial-log.js";
import type { PermissionDenial, RunEvent } from "../../runtime/events.js";

const SHOWN = 3;

/** Every run's denials from its run.completed; a run that failed before it completed, from its own events. */
export class DenialTally {
  private readonly done: PermissionDenial[] = [];
  private current = new DenialLog();

  see(e: RunEvent): void {
    if (e.type === "run.started") this.current = new DenialLog();
    else if (e.type === "run.completed") {
      this.done.push(...e.permission_denials);
      this.current = new DenialLog();
    } else this.current.see(e);
  }

  /** What was denied so far, the run in progress included (after a failure it never completes). */
  all(): PermissionDenial[] {
    return [...this.done, ...this.current.list];
  }
}

const WHO: Record<PermissionDenial["denied_by"], string> = {
  policy: "blocked by policy",
  headless: "denied: nobody to ask, run with --yes to approve",
  user: "denied by the user",
};

/** "2 tool calls were denied: bash "rm -rf ~" (blocked by policy), …", or undefined when none was. */
export function denialSummary(denials: PermissionDenial[]): string | undefined {
  if (denials.length === 0) return undefined;
  const shown = denials.slice(0, SHOWN).map((d) => `${d.tool} ${JSON.stringify(d.arguments)} (${WHO[d.denied_by]})`);
  const more = denials.length > SHOWN ? `, and ${denials.length - SHOWN} more` : "";
  const n = denials.length === 1 ? "1 tool call was" : `${denials.length} tool calls were`;
  return `${n} denied: ${shown.join(", ")}${more}`;
}
