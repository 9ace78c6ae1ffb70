// Fixtures for the subagent tests: thread mounts, a sleeping tool, and a way to call `task` as the ToolNode does.
import { mkdirSync, mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "@langchain/langgraph";
import { tool } from "langchain";
import { z } from "zod";
import type { ThreadPaths } from "../../src/sandbox/provider.js";
import type { DelegationEntry } from "../../src/state/types.js";

export function makeMounts(prefix = "deerflow-sub-"): ThreadPaths {
  const base = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const paths = { workspace_path: join(base, "workspace"), uploads_path: join(base, "uploads"), outputs_path: join(base, "outputs") };
  for (const p of Object.values(paths)) mkdirSync(p, { recursive: true });
  return paths;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A tool that sleeps `ms` (ignoring its signal unless `respectSignal`), recording the abort it saw. */
export type SleepLog = { aborted: number; calls: number; spans?: Array<[number, number]> };
export function sleepyTool(log: SleepLog = { aborted: 0, calls: 0 }, respectSignal = false) {
  return tool(
    async ({ ms }, runtime) => {
      log.calls++;
      const start = Date.now();
      const signal = (runtime as { signal?: AbortSignal }).signal;
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, ms);
        signal?.addEventListener(
          "abort",
          () => {
            log.aborted++;
            if (respectSignal) {
              clearTimeout(t);
              reject(Object.assign(new Error("aborted"), { name: "AbortError" }));
            }
          },
          { once: true },
        );
      });
      log.spans?.push([start, Date.now()]);
      return `slept ${ms} ms`;
    },
    { name: "sleepy", description: "Sleep for ms milliseconds.", schema: z.object({ ms: z.number() }) },
  );
}

type Invokable = { invoke: (input: never, config?: never) => Promise<unknown> };

let seq = 0;
/** Call the task tool as createAgent's ToolNode does. */
export async function callTask(
  t: unknown,
  args: { description: string; prompt: string; subagent_type: string; acceptance?: { check: string; target: string }[] },
  opts: { mounts?: ThreadPaths; signal?: AbortSignal; id?: string; configurable?: Record<string, unknown> } = {},
): Promise<{ text: string; status: string | undefined; entry: DelegationEntry; command: Command }> {
  const id = opts.id ?? `call_t${++seq}`;
  const config = {
    configurable: { thread_id: "T1", deerflow_run_id: "run-1", ...opts.configurable },
    state: { thread_data: opts.mounts ?? null },
    toolCallId: id,
    signal: opts.signal,
  };
  const out = await (t as Invokable).invoke({ id, name: "task", args, type: "tool_call" } as never, config as never);
  if (!(out instanceof Command)) throw new Error(`task returned ${JSON.stringify(out)}`);
  const update = out.update as { messages: Array<{ content: unknown; status?: string }>; delegations: DelegationEntry[] };
  return { text: String(update.messages[0]!.content), status: update.messages[0]!.status, entry: update.delegations[0]!, command: out };
}
