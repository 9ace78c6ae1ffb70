// The team database as a hostile environment and user meet it, through the CLI (in this process; the TLS warning and
// the closed pipe through the built CLI) against a real PostgreSQL server: NUL bytes (text and jsonb cannot hold
// U+0000), a server that refuses writes mid-run (out of disk, its statement_timeout), URLs the driver cannot use, TLS
// the server does not offer, a `db migrate` killed half-way, and a reader that closes the pipe. Each cause is said in
// one line with the right exit code, never "internal error", never the password.
import { spawn } from "node:child_process";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, type Sandbox } from "../support/cli.js";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import { createTestDatabase, pgSkip } from "../support/postgres.js";

const e2e = useE2E();
let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  if (!pgSkip) db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

async function sql(text: string, url = db.url): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(text);
  } finally {
    await c.end();
  }
}

/** A home on the team database whose `run` drives the CLI in this process (cli-in-process.ts); `spawn` is the built CLI. */
function machine(url = db.url): Sandbox {
  const sb = e2e.sandbox();
  sb.env.DEERFLOW_DATABASE_URL = url;
  return Object.assign(sb, { run: (args: string[], opts: Parameters<Sandbox["run"]>[1] = {}) => runCli(sb, args, opts) });
}

/** The password as it would leak: after the user name (the test role's password is its name). */
const password = () => `:${new URL(db.url).password}@`;
const oneLine = (stderr: string) =>
  stderr
    .trim()
    .split("\n")
    .filter((l) => !/new thread|^deerflow: thread /.test(l));

async function shownTexts(sb: Sandbox, threadId: string): Promise<string[]> {
  const shown = JSON.parse((await sb.run(["threads", "show", threadId, "--json"])).stdout);
  return shown.entries.map((e: { text?: string }) => e.text).filter(Boolean);
}

describe.skipIf(pgSkip)("the team database against hostile input and a hostile server", { timeout: 300_000 }, () => {
  it("NUL bytes in the prompt, the answer and the title are stored, not a failed run", async () => {
    const a = machine();
    e2e.server.titleReply = { content: "nul\u0000title" };
    e2e.server.push({ content: "answer with \u0000 inside" });
    const r = await a.run(["run", "--output-format", "json"], { input: "prompt with \u0000 inside" });
    expect(r.stderr).not.toMatch(/internal error|0x00/);
    expect(r.exitCode).toBe(0);
    const threadId = JSON.parse(r.stdout).thread_id as string;
    // The checkpoint keeps the bytes (bytea); the index's text columns hold U+FFFD where the NUL was.
    expect(await shownTexts(a, threadId)).toEqual(["prompt with \u0000 inside", "answer with \u0000 inside"]);
    const row = (await sql(`SELECT title FROM deerflow.threads WHERE id = '${threadId}'`)).rows[0];
    expect(row.title).toBe("nul\uFFFDtitle");
    e2e.server.push({ content: "next" });
    expect((await a.run(["run", "--thread", threadId, "go on"])).exitCode).toBe(0);
  });

  it("a server out of disk mid-run: one line naming it, the run rolled back, the thread continues once it has space", async () => {
    const a = machine();
    e2e.server.push({ content: "first answer" });
    const threadId = JSON.parse((await a.run(["run", "--output-format", "json", "first turn"])).stdout).thread_id as string;
    // What PostgreSQL raises when it cannot extend a file (SQLSTATE 53100), on the run's next pending write.
    await sql(`CREATE OR REPLACE FUNCTION deerflow.disk_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      RAISE EXCEPTION 'could not extend file "base/1/2": No space left on device' USING ERRCODE = 'disk_full'; END $$;
      CREATE TRIGGER disk_full BEFORE INSERT ON deerflow.checkpoint_writes FOR EACH ROW EXECUTE FUNCTION deerflow.disk_full()`);
    try {
      e2e.server.push({ content: "never saved" });
      const r = await a.run(["run", "--thread", threadId, "second turn"]);
      expect(r.exitCode).toBe(1);
      const lines = oneLine(r.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/No space left on device\. The run was rolled back\. The database server is out of disk space/);
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
      expect(r.stderr).not.toContain(password());
    } finally {
      await sql("DROP TRIGGER disk_full ON deerflow.checkpoint_writes");
    }
    expect(await shownTexts(a, threadId)).toEqual(["first turn", "first answer"]);
    // Each step waits for its checkpoint on Postgres, so the failed run may stop before it asks the model at all.
    e2e.server.setScript([{ content: "third answer" }]);
    expect((await a.run(["run", "--thread", threadId, "third turn"])).exitCode).toBe(0);
    expect(await shownTexts(a, threadId)).toEqual(["first turn", "first answer", "third turn", "third answer"]);
  });

  it("the server's statement_timeout cutting a write short is said as that, with what to change", async () => {
    const slow = await createTestDatabase();
    try {
      const a = machine(slow.url);
      e2e.server.push({ content: "first answer" });
      const threadId = JSON.parse((await a.run(["run", "--output-format", "json", "first turn"])).stdout).thread_id as string;
      // Every new session of that database gets a 300 ms statement_timeout; pending writes take a second each.
      await sql(
        `CREATE FUNCTION deerflow.slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(1); RETURN NEW; END $$;
        CREATE TRIGGER slow BEFORE INSERT ON deerflow.checkpoint_writes FOR EACH ROW EXECUTE FUNCTION deerflow.slow();
        ALTER DATABASE ${slow.name} SET statement_timeout = '300ms'`,
        slow.url,
      );
      e2e.server.push({ content: "never saved" });
      const r = await a.run(["run", "--thread", threadId, "second turn"]);
      expect(r.exitCode).toBe(1);
      expect(oneLine(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/statement timeout.*statement_timeout/);
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    } finally {
      await slow.drop();
    }
  });

  it("a schema that lost a table its recorded version has (a partial restore) is said as that, not 'internal error'", async () => {
    const broken = await createTestDatabase();
    try {
      const a = machine(broken.url);
      e2e.server.push({ content: "first answer" });
      expect((await a.run(["run", "first turn"])).exitCode).toBe(0);
      await sql("DROP TABLE deerflow.runs", broken.url);
      e2e.server.push({ content: "never saved" });
      const r = await a.run(["run", "second turn"]);
      expect(r.exitCode).toBe(1);
      expect(oneLine(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/relation "runs" does not exist.*restore the database from a backup/);
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    } finally {
      await broken.drop();
    }
  });

  it("a URL the driver cannot parse is a configuration error (exit 2), without the password", async () => {
    const a = machine("postgres://someone:s3cretPW@127.0.0.1:99999/x");
    const r = await a.run(["threads"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/URL postgres:\/\/someone:\*+@127\.0\.0\.1:99999\/x is not valid/);
    expect(r.stderr).not.toContain("s3cretPW");
  });

  it("sslmode=require: one line on what TLS did, none of the driver's multi-line warning", async () => {
    // The test server either offers no TLS or a certificate nobody signed (Debian's snakeoil): both are said in one line.
    // The built CLI: the driver's warning would go to the process's own stderr.
    const a = e2e.sandbox();
    const r = await a.run(["threads"], { env: { DEERFLOW_DATABASE_URL: `${db.url}?sslmode=require` } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).not.toMatch(/SECURITY WARNING|uselibpqcompat/);
    expect(r.stderr).toMatch(/does not support SSL.*remove `sslmode`|certificate was not accepted.*sslrootcert/);
    expect(r.stderr).not.toContain(password());
  });

  it("db migrate killed half-way (rows copied, the thread not yet listed) finishes on the next run", async () => {
    const target = await createTestDatabase();
    try {
      const home = e2e.sandbox();
      e2e.server.setScript([{ content: "one" }, { content: "two" }]);
      const t1 = JSON.parse((await runCli(home, ["run", "--output-format", "json", "first"])).stdout).thread_id as string;
      const t2 = JSON.parse((await runCli(home, ["run", "--output-format", "json", "second"])).stdout).thread_id as string;
      expect((await runCli(home, ["db", "migrate", "--from", "sqlite", "--to", target.url])).exitCode).toBe(0);
      // What a kill between the copied rows and the index row leaves: everything but the thread's listing.
      await sql(`DELETE FROM deerflow.threads WHERE id = '${t2}'`, target.url);
      const again = await runCli(home, ["db", "migrate", "--from", "sqlite", "--to", target.url]);
      expect(again.stderr).not.toMatch(/internal error|duplicate key/);
      expect(again.exitCode).toBe(0);
      expect(again.stdout).toMatch(/Copied 1 thread\(s\).*1 already there, skipped/);
      const team = machine(target.url);
      expect(await shownTexts(team, t1)).toEqual(["first", "one"]);
      expect(await shownTexts(team, t2)).toEqual(["second", "two"]);
      const runs = JSON.parse((await team.run(["threads", "show", t2, "--json"])).stdout).runs;
      expect(runs.map((r: { status: string }) => r.status)).toEqual(["success"]);
    } finally {
      await target.drop();
    }
  });

  it("a reader that closes the pipe early (`deerflow threads | head -1`) ends nothing badly", async () => {
    const a = machine();
    e2e.server.setScript([{ content: "x" }, { content: "y" }]);
    await a.run(["run", "one"]);
    await a.run(["run", "two"]);
    const child = spawn(process.execPath, [BIN, "threads"], { env: a.env, stdio: ["ignore", "pipe", "pipe"] });
    // The reader is gone before deerflow writes its first byte: every write meets a closed pipe.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
    expect(code).toBe(0);
  });
});
