// The chat state container: the reducer's state plus subscribers (React reads it with useSyncExternalStore), so
// the controller can act on the latest state outside React's render cycle.
import { type ChatAction, initialState, reduce } from "./state/reducer.js";
import { sanitize } from "./state/sanitize.js";
import type { ChatState, StatusView } from "./state/types.js";

export class ChatStore {
  private state: ChatState;
  private readonly listeners = new Set<() => void>();

  constructor(status: Partial<StatusView> = {}) {
    this.state = initialState(status);
  }

  get = (): ChatState => this.state;

  dispatch = (action: ChatAction): void => {
    const next = reduce(this.state, sanitize(action));
    if (next === this.state) return;
    this.state = next;
    for (const l of this.listeners) l();
  };

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}
