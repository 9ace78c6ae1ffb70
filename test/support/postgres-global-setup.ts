// vitest globalSetup: a PostgreSQL server for the tests that need one. Reaches the local cluster as the test role;
// when it is down, starts it (`pg_ctlcluster`, the Debian/Ubuntu layout of the machine image and of CI) and creates
// the role. Tests `inject` pgUrl (an admin URL) or, when no server could be had, pgSkip (why).
import { execFileSync } from "node:child_process";
import pg from "pg";

export const TEST_ROLE = "deerflow_test";
const URL_ = process.env.DEERFLOW_TEST_PG_URL ?? `postgres://${TEST_ROLE}:${TEST_ROLE}@127.0.0.1:5432/postgres`;

async function reachable(url: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (err) {
    return err;
  } finally {
    await client.end().catch(() => {});
  }
}

function sh(cmd: string, args: string[]): void {
  execFileSync(cmd, args, { stdio: "pipe", timeout: 60_000 });
}

function startLocalCluster(): void {
  const version = execFileSync("pg_lsclusters", ["-h"], { encoding: "utf8" }).trim().split("\n")[0]?.split(/\s+/) ?? [];
  if (version.length < 2) throw new Error("no PostgreSQL cluster (pg_lsclusters lists none)");
  if (version[3] !== "online") sh("pg_ctlcluster", ["--skip-systemctl-redirect", version[0]!, version[1]!, "start"]);
  const sql = `DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${TEST_ROLE}') THEN CREATE ROLE ${TEST_ROLE} LOGIN CREATEDB PASSWORD '${TEST_ROLE}'; END IF; END $$;`;
  sh("su", ["postgres", "-c", `psql -q -c "${sql.replace(/"/g, '\\"').replace(/\$/g, "\\$")}"`]);
}

declare module "vitest" {
  export interface ProvidedContext {
    pgUrl: string;
    pgSkip: string;
  }
}

export default async function setup(project: { provide(key: "pgUrl" | "pgSkip", value: string): void }): Promise<void> {
  let err = await reachable(URL_);
  if (err && !process.env.DEERFLOW_TEST_PG_URL) {
    try {
      startLocalCluster();
      err = await reachable(URL_);
    } catch (startErr) {
      err = startErr;
    }
  }
  if (err) {
    const why = `PostgreSQL is not available for the tests: ${(err as Error).message.split("\n")[0]}`;
    // CI must exercise PostgreSQL: there, no server is a failure, not a skip.
    if (process.env.DEERFLOW_REQUIRE_PG || process.env.CI) throw new Error(why);
    project.provide("pgSkip", why);
    project.provide("pgUrl", "");
    return;
  }
  project.provide("pgUrl", URL_);
  project.provide("pgSkip", "");
}
