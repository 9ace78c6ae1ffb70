// ThreadData — first in the stack: every later middleware and tool needs to know where the thread's files are,
// so it runs first in beforeAgent and records {workspace, uploads, outputs} in `thread_data`. A workspace
// already recorded is kept: the thread always works in the same place. A new thread takes the paths the runtime
// passes in `configurable.deerflow_thread_data` (e.g. a --workspace binding; createAgent drops extra input keys,
// so they cannot come in as input state), else the provider's per-thread directories.
import { readRunConfigurable } from "../vocabulary/configurable.js";
import { createMiddleware } from "langchain";
import { THREAD_DATA_STATE } from "../state/thread-state.js";
import type { SandboxProvider } from "../sandbox/provider.js";
import { requireThreadId, resolveSandboxProvider } from "../sandbox/resolve-provider.js";

export function threadDataMiddleware(options: { provider?: SandboxProvider } = {}) {
  return createMiddleware({
    name: "ThreadData",
    stateSchema: THREAD_DATA_STATE,
    beforeAgent: (state, runtime) => {
      const current = (state as { thread_data?: { workspace_path?: string } | null }).thread_data;
      if (current?.workspace_path) return;
      const given = readRunConfigurable(runtime.configurable).threadData;
      if (given?.workspace_path) return { thread_data: given } as never;
      const provider = resolveSandboxProvider(options.provider, runtime.configurable);
      return { thread_data: provider.pathsFor(requireThreadId(runtime.configurable)) } as never;
    },
  });
}
