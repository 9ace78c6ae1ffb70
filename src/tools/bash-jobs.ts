// bash_jobs — lists the background jobs the model started with bash run_in_background (status, log), and kills
// one on request. The thread's background_tasks state says what was started; the live registry says what still
// runs (a job recorded by an earlier chat or run ended with it).
import { tool } from "langchain";
import { z } from "zod";
import { getJob, killJob } from "../sandbox/background-jobs.js";

type Recorded = { id?: unknown; command?: unknown; log?: unknown; kind?: unknown };

export function createBashJobsTool() {
  return tool(
    async ({ kill }, runtime) => {
      const recorded = ((runtime as { state?: { background_tasks?: unknown } } | undefined)?.state?.background_tasks ?? []) as Recorded[];
      if (kill) {
        if (killJob(kill)) return `Killed background job ${kill}.`;
        const j = getJob(kill);
        throw new Error(j ? `Background job ${kill} is not running (${j.status}).` : `No running background job ${kill}; call bash_jobs without arguments to list them.`);
      }
      const lines = (Array.isArray(recorded) ? recorded : [])
        .filter((t) => t.kind === "bash" && typeof t.id === "string")
        .map((t) => {
          const live = getJob(t.id as string);
          const status = live ? (live.exit_code !== undefined ? `${live.status} (exit ${live.exit_code})` : live.status) : "ended (its chat or run is over)";
          return `${t.id}  ${status}  log ${String(t.log)}  $ ${String(t.command).slice(0, 200)}`;
        });
      return lines.length ? lines.join("\n") : "No background jobs.";
    },
    {
      name: "bash_jobs",
      description: "List the background jobs started with bash run_in_background (id, status, log file), or kill one by id.",
      schema: z.object({
        kill: z.string().optional().describe("The id of a background job to kill (e.g. bg-1a2b3c4d)."),
      }),
    },
  );
}
