// A sandbox that plays one machine of a team: every command it runs points at the team database under its own host
// name, with a short lease (3 s) so takeovers happen within a test. `run` drives the CLI in this process
// (cli-in-process.ts: a machine is its env, home and host name, which main() reads per call), one command at a time;
// what must run alongside another command, or be killed or frozen, is a real process: `spawn`.
import { expect } from "vitest";
import type { Sandbox } from "./cli.js";
import { runCli } from "./cli-in-process.js";
import { waitFor } from "./wait.js";

export function teamMachine(sb: Sandbox, databaseUrl: string, host: string): Sandbox {
  const base = { DEERFLOW_DATABASE_URL: databaseUrl, DEERFLOW_HOST: host, DEERFLOW_LEASE_SECONDS: "3" };
  const spawn = sb.spawn.bind(sb);
  return Object.assign(sb, {
    run: (args: string[], opts: Parameters<Sandbox["run"]>[1] = {}) => runCli(sb, args, { input: opts.input, cwd: opts.cwd, env: { ...base, ...opts.env } }),
    spawn: (args: string[], opts: Parameters<Sandbox["spawn"]>[1] = {}) => spawn(args, { ...opts, env: { ...base, ...opts.env } }),
  });
}

/** What a spawned command printed, as `run` returns it. */
export async function finished(child: ReturnType<Sandbox["spawn"]>): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const r = await child;
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/**
 * Freezes the machine running `owner` (SIGSTOP) until its lease runs out, has `taker` continue the thread with
 * "b's turn" (its model must answer "b took over"), then wakes the owner.
 */
export async function takeOverWhileFrozen(owner: { pid?: number }, taker: Sandbox, threadId: string): Promise<void> {
  process.kill(owner.pid!, "SIGSTOP");
  try {
    await waitFor(async () => {
      const listed = JSON.parse((await taker.run(["threads", "--json"])).stdout) as { id: string; status: string }[];
      return listed.find((t) => t.id === threadId)?.status === "interrupted" ? true : undefined;
    }, "the frozen machine's lease to expire");
    const took = await taker.run(["run", "--thread", threadId, "b's turn"]);
    expect(took.exitCode, took.stderr).toBe(0);
    expect(took.stdout).toBe("b took over\n");
  } finally {
    process.kill(owner.pid!, "SIGCONT");
  }
}
