// The sandbox provider interface: where a thread's files live and how its sandbox is acquired and released.
// The local provider is the only one today; the interface keeps remote/container providers possible.

export interface ThreadPaths {
  workspace_path: string;
  uploads_path: string;
  outputs_path: string;
}

export interface SandboxProvider {
  /** Directories of a thread (not created). */
  pathsFor(threadId: string): ThreadPaths;
  /** Make the thread's sandbox usable; idempotent per thread. Returns the sandbox id. */
  acquire(threadId: string, paths: ThreadPaths): Promise<string>;
  /** Let go of the sandbox after a run (the files stay). */
  release(sandboxId: string): Promise<void>;
}

const THREAD_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Thread ids become directory names: refuse anything that could escape `<home>/threads/`. */
export function assertSafeThreadId(threadId: string): void {
  if (!THREAD_ID.test(threadId) || threadId.includes("..")) {
    throw new Error(`Invalid thread id "${threadId}": use letters, digits, ".", "_" and "-" (at most 128 characters).`);
  }
}
