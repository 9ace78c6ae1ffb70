// Sandbox — after ThreadData and Uploads: acquires the thread's sandbox in beforeAgent (idempotent per thread)
// and records `sandbox.sandbox_id`; releases it in afterAgent, which runs late because after* hooks run in reverse.
import { StateSchema } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { THREAD_STATE_VALUES } from "../state/thread-state.js";
import type { SandboxProvider, ThreadPaths } from "../sandbox/provider.js";
import { requireThreadId, resolveSandboxProvider } from "../sandbox/resolve-provider.js";

// langchain hands a middleware node only the fields its schema declares: these are the ones it reads and writes.
const stateSchema = new StateSchema({ thread_data: THREAD_STATE_VALUES.thread_data, sandbox: THREAD_STATE_VALUES.sandbox });

export function sandboxMiddleware(options: { provider?: SandboxProvider } = {}) {
  return createMiddleware({
    name: "Sandbox",
    stateSchema,
    beforeAgent: async (state, runtime) => {
      const provider = resolveSandboxProvider(options.provider, runtime.configurable);
      const threadId = requireThreadId(runtime.configurable);
      const paths = ((state as { thread_data?: ThreadPaths | null }).thread_data ?? provider.pathsFor(threadId)) as ThreadPaths;
      const sandbox_id = await provider.acquire(threadId, paths);
      return { sandbox: { sandbox_id } } as never;
    },
    afterAgent: async (state, runtime) => {
      const id = (state as { sandbox?: { sandbox_id?: string } | null }).sandbox?.sandbox_id;
      if (id) await resolveSandboxProvider(options.provider, runtime.configurable).release(id);
    },
  });
}
