// Memory — WHY afterAgent: it runs once, when a run has succeeded (a failed run is rolled back and teaches
// nothing), and must not delay the answer: it only QUEUES the run (its transcript, secret shapes masked) in the
// memory store, one quick local write. Extracting facts is a side model call done later by a drain (after the run
// in a chat; at the next start for `deerflow run`), never inside the run. WHY its position (DeerFlow's, after
// Title): after* hooks run bottom to top, so the run's own work is done before it looks at the messages.
import { createMiddleware } from "langchain";
import { memoryStoreFor } from "../memory/store.js";
import { projectKeyOf } from "../memory/project.js";
import { runTranscript } from "../memory/transcript.js";
import { THREAD_DATA_STATE } from "../state/thread-state.js";
import { readRunConfigurable } from "../vocabulary/configurable.js";
import { redactPii } from "../vocabulary/pii-redaction.js";

export interface MemoryMiddlewareOptions {
  /** piiRedaction is on: personal values in the queued transcript are masked (they never reach the extractor). */
  piiRedaction?: boolean;
  /** The endpoint the run talks to (endpointIdentity): only a drain with the same one extracts it. Without one, no
   * run is queued (a transcript of unknown origin would go to whichever model drains next). */
  endpoint?: string;
}

export function memoryMiddleware(options: MemoryMiddlewareOptions = {}) {
  return createMiddleware({
    name: "Memory",
    stateSchema: THREAD_DATA_STATE,
    afterAgent: (state, runtime) => {
      const run = readRunConfigurable(runtime.configurable);
      // Subagents and runs outside a thread have nothing durable of their own to teach.
      if (!run.home || !run.threadId || !run.runId || run.subagent || !options.endpoint) return undefined;
      const raw = runTranscript(state.messages ?? []);
      const transcript = options.piiRedaction ? redactPii(raw, run.threadId) : raw;
      if (!transcript) return undefined;
      const workspace = (state as { thread_data?: { workspace_path?: string | null } | null }).thread_data?.workspace_path ?? run.threadData?.workspace_path;
      try {
        memoryStoreFor(run.home).enqueue({ threadId: run.threadId, runId: run.runId, project: projectKeyOf(workspace, run.home), transcript, endpoint: options.endpoint });
      } catch {
        // A locked or full disk: this run's facts are not learned; the run itself is not failed for it.
      }
      return undefined;
    },
  });
}
