// The files a run presented (present_files), in the order they were first presented: the run's result names them
// (`files` in the JSON result), as the `files.presented` events did while it ran.
import type { RunEvent, RunEventListener } from "./events.js";

export class PresentedFiles {
  private readonly seen: string[] = [];

  /** The run's listener, with presented files noted on the way. */
  listen(next: RunEventListener | undefined): RunEventListener {
    return (e: RunEvent) => {
      if (e.type === "files.presented") for (const f of e.files) if (!this.seen.includes(f)) this.seen.push(f);
      next?.(e);
    };
  }

  get files(): string[] {
    return [...this.seen];
  }
}
