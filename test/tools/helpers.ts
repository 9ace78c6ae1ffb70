// Shared fixtures for the file-tool tests: a temp home with thread A's mounts, and a way to call a tool the way
// langchain's ToolNode does (graph state in `runtime.state`, thread id in `configurable`).
import { mkdirSync, mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "@langchain/langgraph";
import type { ThreadPaths } from "../../src/sandbox/provider.js";

export function makeThread(root: string, id: string): ThreadPaths {
  const base = join(root, "threads", id);
  const paths = { workspace_path: join(base, "workspace"), uploads_path: join(base, "uploads"), outputs_path: join(base, "outputs") };
  for (const p of Object.values(paths)) mkdirSync(p, { recursive: true });
  return paths;
}

export function makeRoot(prefix = "deerflow-fs-"): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

type Invokable = { invoke: (input: never, config?: never) => Promise<unknown> };

let callSeq = 0;
/** Invoke a tool as the agent's ToolNode would; returns the tool's text (or the Command for Command tools). */
export async function call(t: unknown, args: Record<string, unknown>, mounts: ThreadPaths, threadId = "A"): Promise<unknown> {
  const config = { configurable: { thread_id: threadId }, state: { thread_data: mounts }, toolCallId: `call_${++callSeq}` };
  return (t as Invokable).invoke(args as never, config as never);
}

/** The text a tool showed the model (ToolMessage content inside a Command, or the plain string). */
export function textOf(out: unknown): string {
  if (typeof out === "string") return out;
  if (out instanceof Command) {
    const msgs = (out.update as { messages?: Array<{ content: unknown }> }).messages ?? [];
    return msgs.map((m) => String(m.content)).join("\n");
  }
  return JSON.stringify(out);
}
