// Which provider a run uses: the one given to the middleware, else a local provider rooted at the home the
// runtime passes in `configurable.deerflow_home` (library callers without a runtime get $DEERFLOW_HOME or ~/.deerflow).
import { homedir } from "node:os";
import { join } from "node:path";
import { readRunConfigurable } from "../vocabulary/configurable.js";
import { LocalSandboxProvider } from "./local-provider.js";
import type { SandboxProvider } from "./provider.js";

const byHome = new Map<string, LocalSandboxProvider>();

export function resolveSandboxProvider(explicit: SandboxProvider | undefined, configurable: Record<string, unknown> | undefined): SandboxProvider {
  if (explicit) return explicit;
  const home = readRunConfigurable(configurable).home || process.env.DEERFLOW_HOME || join(homedir(), ".deerflow");
  let p = byHome.get(home);
  if (!p) byHome.set(home, (p = new LocalSandboxProvider(home)));
  return p;
}

export function requireThreadId(configurable: Record<string, unknown> | undefined): string {
  const id = configurable?.thread_id;
  if (typeof id !== "string" || id === "") {
    throw new Error("The sandbox needs a thread: invoke the agent with config.configurable.thread_id set.");
  }
  return id;
}
