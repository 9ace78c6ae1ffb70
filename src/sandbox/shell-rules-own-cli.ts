// deerflow's own CLI run by the agent's shell: `deerflow memory add …` stores a fact every later thread is shown,
// `deerflow trust` trusts a folder's settings, `deerflow config`/`mcp add` change what later runs start. Those are the
// user's decisions, which the memory filter and folder trust exist to keep from the model; unconfined the command
// reaches the real data directory (the twentieth pass's SA1: `--yes` let the model's shell run `deerflow memory add`).
// So it asks with its own reason, which without a sandbox only a person may answer (shell-unconfined.ts needsPerson).
import type { SimpleCommand } from "./shell-command.js";
import { launchedCommand } from "./shell-runners.js";

export const OWN_CLI_REASON = "runs deerflow itself: your memory, trusted folders and settings are yours to change, not the agent's";

/** The package's entry points as a node (or tsx, bun) argument: `node bin/deerflow`, `node …/deerflow/dist/cli/main.js`. */
const ENTRY = /(?:^|\/)deerflow(?:\.[cm]?js)?$|(?:^|\/)deerflow\/dist\/cli\/[\w-]+\.[cm]?js$/;

export function runsOwnCli(c: SimpleCommand): boolean {
  if (c.name === "deerflow") return true;
  if (/^(?:node|nodejs|tsx|ts-node|bun|deno)$/.test(c.name) && ENTRY.test(c.args.find((a) => !a.startsWith("-")) ?? "")) return true;
  const inner = launchedCommand(c);
  return inner !== undefined && runsOwnCli(inner);
}
