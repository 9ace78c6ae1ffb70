// Messages typed while the chat cannot take them yet (a run is working, or the runtime is still loading): kept in
// order, shown under the transcript as queued, and sent one per finished run. Esc takes back the latest one (see
// use-chat-keys.ts). Every change is mirrored to the store so the screen shows exactly what will be sent.
import type { ChatStore } from "./store.js";

export class MessageQueue {
  private readonly items: string[] = [];

  constructor(private readonly store: ChatStore) {}

  get length(): number {
    return this.items.length;
  }

  push(text: string): void {
    this.items.push(text);
    this.publish();
  }

  /** The oldest message, removed (the next to send). */
  shift(): string | undefined {
    const text = this.items.shift();
    if (text !== undefined) this.publish();
    return text;
  }

  /** The newest message, removed (esc takes it back into the input). */
  pop(): string | undefined {
    const text = this.items.pop();
    if (text !== undefined) this.publish();
    return text;
  }

  private publish(): void {
    this.store.dispatch({ type: "ui.queued", queued: [...this.items] });
  }
}
