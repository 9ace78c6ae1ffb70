// Local sandbox: a per-thread directory under <home>/threads/<id>/. Sandbox ids are `local:<thread>`.
import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { type SandboxProvider, type ThreadPaths, assertSafeThreadId } from "./provider.js";

export class LocalSandboxProvider implements SandboxProvider {
  readonly home: string;
  private readonly acquired = new Set<string>();

  constructor(home: string) {
    this.home = home;
  }

  pathsFor(threadId: string): ThreadPaths {
    assertSafeThreadId(threadId);
    const root = join(this.home, "threads", threadId);
    return { workspace_path: join(root, "workspace"), uploads_path: join(root, "uploads"), outputs_path: join(root, "outputs") };
  }

  async acquire(threadId: string, paths: ThreadPaths): Promise<string> {
    const id = `local:${threadId}`;
    if (this.acquired.has(id)) return id;
    // A bound workspace (--workspace) must already exist: never silently create a fresh one in its place.
    const bound = paths.workspace_path !== this.pathsFor(threadId).workspace_path;
    if (bound) {
      const s = await stat(paths.workspace_path).catch(() => undefined);
      if (!s?.isDirectory()) throw new Error(`The workspace ${paths.workspace_path} of thread ${threadId} no longer exists (moved or deleted).`);
    } else {
      await mkdir(paths.workspace_path, { recursive: true });
    }
    await mkdir(paths.uploads_path, { recursive: true });
    await mkdir(paths.outputs_path, { recursive: true });
    this.acquired.add(id);
    return id;
  }

  async release(sandboxId: string): Promise<void> {
    this.acquired.delete(sandboxId);
  }
}
