// The lines the git guards say about repairs they made between commands (a background job rewrote a file), kept
// until the next command's output says them. Each line once: a job re-planting in a loop must not grow that output
// without end (the ninth pass).
export class RepairLines {
  private readonly lines: string[] = [];

  hear(...lines: string[]): void {
    for (const l of lines) if (!this.lines.includes(l)) this.lines.push(l);
  }

  /** The lines heard so far, and forget them. */
  take(): string[] {
    return this.lines.splice(0);
  }
}
