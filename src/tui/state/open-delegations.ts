// ctrl+t after a run with subagents: the run's panel was committed folded to one line (the transcript is written
// once), so opening it prints the whole panel below — once per run.
import type { NewItem } from "./reducer.js";
import type { TranscriptItem } from "./types.js";

/** The whole panel of the latest turn's folded subagents item, unless it was opened already; else undefined. */
export function openedDelegations(items: TranscriptItem[]): NewItem | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind === "user") return undefined;
    if (item.kind === "delegations") return item.expanded ? undefined : { kind: "delegations", delegations: item.delegations, expanded: true };
  }
  return undefined;
}
