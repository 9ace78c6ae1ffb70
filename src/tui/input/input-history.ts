// Up/Down input history, shell-like: browsing starts from what is being typed and comes back to it.
export class InputHistory {
  private readonly entries: string[] = [];
  /** entries.length means "the draft". */
  private index = 0;
  private draft = "";
  private readonly max: number;

  constructor(initial: string[] = [], max = 200) {
    this.max = max;
    for (const e of initial) this.push(e);
  }

  push(entry: string): void {
    if (entry.trim() && this.entries.at(-1) !== entry) this.entries.push(entry);
    if (this.entries.length > this.max) this.entries.shift();
    this.index = this.entries.length;
    this.draft = "";
  }

  /** The older entry, or undefined at the oldest. `current` is kept as the draft when browsing starts. */
  prev(current: string): string | undefined {
    if (this.index === 0) return undefined;
    if (this.index === this.entries.length) this.draft = current;
    return this.entries[--this.index];
  }

  /** The newer entry, the draft after the newest, or undefined when not browsing. */
  next(): string | undefined {
    if (this.index >= this.entries.length) return undefined;
    this.index++;
    return this.index === this.entries.length ? this.draft : this.entries[this.index];
  }
}
