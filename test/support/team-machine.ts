// A sandbox that plays one machine of a team: every command it runs points at the team database under its own host
// name, with a short lease (3 s) so takeovers happen within a test.
import type { Sandbox } from "./cli.js";

export function teamMachine(sb: Sandbox, databaseUrl: string, host: string): Sandbox {
  const base = { DEERFLOW_DATABASE_URL: databaseUrl, DEERFLOW_HOST: host, DEERFLOW_LEASE_SECONDS: "3" };
  const run = sb.run.bind(sb);
  const spawn = sb.spawn.bind(sb);
  return Object.assign(sb, {
    run: (args: string[], opts: Parameters<Sandbox["run"]>[1] = {}) => run(args, { ...opts, env: { ...base, ...opts.env } }),
    spawn: (args: string[], opts: Parameters<Sandbox["spawn"]>[1] = {}) => spawn(args, { ...opts, env: { ...base, ...opts.env } }),
  });
}
