// ThreadData — first in the stack: every later middleware and tool needs to know where the thread's files are,
// so it runs first in beforeAgent and records {workspace, uploads, outputs} in `thread_data`. A workspace
// already recorded (e.g. bound with --workspace) is kept: the thread always works in the same place.
import { createMiddleware } from "langchain";
import type { SandboxProvider } from "../sandbox/provider.js";
import { requireThreadId, resolveSandboxProvider } from "../sandbox/resolve-provider.js";

export function threadDataMiddleware(options: { provider?: SandboxProvider } = {}) {
  return createMiddleware({
    name: "ThreadData",
    beforeAgent: (state, runtime) => {
      const current = (state as { thread_data?: { workspace_path?: string } | null }).thread_data;
      if (current?.workspace_path) return;
      const provider = resolveSandboxProvider(options.provider, runtime.configurable);
      return { thread_data: provider.pathsFor(requireThreadId(runtime.configurable)) } as never;
    },
  });
}
