// The lines the git guards say about repairs they made between commands (a background job rewrote a file), kept
// until the next command's output says them. Each line once: a job re-planting in a loop must not grow that output
// without end (the ninth pass).
export class RepairLines {
  private readonly lines: string[] = [];
  private listener: (() => void) | undefined;

  hear(...lines: string[]): void {
    const before = this.lines.length;
    for (const l of lines) if (!this.lines.includes(l)) this.lines.push(l);
    if (this.lines.length > before) this.listener?.();
  }

  /** `listener` is called when a new line is heard. */
  onHear(listener: () => void): void {
    this.listener = listener;
  }

  /** The lines heard so far, and forget them. */
  take(): string[] {
    return this.lines.splice(0);
  }
}

/** What the user must hear whatever the model does: a check that could not finish (run-shell.ts warns them). */
export const toUser = new RepairLines();

/**
 * Runs one guard's check; a check that throws (a folder a command made unenterable under `.git`: the thirty-sixth
 * pass's A36a-2 made one lstat throw, which crashed deerflow from a watcher and skipped every later guard) gives a line
 * for the model and the user instead, and the other checks still run.
 */
export function checkSafely(what: string, check: () => string[]): string[] {
  try {
    return check();
  } catch (err) {
    const line = `deerflow could not finish checking ${what} (${(err as Error).message}): look at it before you run git there.`;
    toUser.hear(line);
    return [line];
  }
}
