// What the ChatController is given (the store, how to load the runtime, how to leave) and what it is asked to start.
import type { ChatSession, DiscoveredServer, ModelChoice, SavedChoice } from "../runtime/chat-session.js";
import type { ChatStore } from "./store.js";

export interface StartRequest {
  prompt?: string;
  goal?: string;
  /** Resume a thread: by id, or the latest one. */
  resume?: { threadId?: string; latest?: boolean };
}

export interface ControllerOptions {
  store: ChatStore;
  /**
   * Loads the runtime (LangChain, SQLite) — called after the first frame is on screen. `ignoreUntrusted`: the user
   * chose not to trust the project's .deerflowrc, so its keys that need trust are left out instead of asked about.
   */
  loadSession: (opts?: { ignoreUntrusted?: boolean }) => Promise<ChatSession>;
  /** Leaves the app; an error makes the CLI print it and exit non-zero. */
  exit: (error?: unknown) => void;
  /** First run: what to offer when loading failed for want of a model, and how to save the pick. */
  firstRun?: {
    choices: (err: unknown) => Promise<DiscoveredServer[]>;
    save: (choice: ModelChoice) => Promise<SavedChoice>;
  };
  /** Records trust in the project folder the start-up error names (`deerflow trust`'s record). */
  trustFolder?: (err: UntrustedFolder) => Promise<void>;
}

/** The runtime's UntrustedFolderError, as the TUI sees it (duck-typed: the bundles carry their own classes). */
export interface UntrustedFolder {
  untrustedFolder: true;
  untrusted: { file: string; folder: string; state: "untrusted" | "changed"; wants: string[]; sha256: string };
  trustHome: string;
}

export function untrustedFolderOf(err: unknown): UntrustedFolder | undefined {
  return (err as Partial<UntrustedFolder> | undefined)?.untrustedFolder === true ? (err as UntrustedFolder) : undefined;
}
