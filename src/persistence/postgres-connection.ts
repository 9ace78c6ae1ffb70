// Connecting to a team database (`database` / DEERFLOW_DATABASE_URL): the pool, the URL as it may be shown (never
// with its password), and PostgreSQL's failures said as what they are, in one line.
import pg from "pg";
import { ConfigError, DeerflowError, ExitCode, type StoreWriteOutcome, formatErrorLine } from "../errors.js";
import { isConnectionFault, pgCode } from "./postgres-faults.js";
import { PG_MIGRATIONS, PG_SCHEMA, schemaVersion } from "./postgres-schema.js";
import { VERSION_TABLE } from "./schema-tables.js";

export { isConnectionFault, isServerRefusal } from "./postgres-faults.js";

export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//i.test(url.trim());
}

/** The URL with its password (and any `password=` parameter) replaced by "***": the only form ever printed. */
export function redactDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    for (const key of [...u.searchParams.keys()]) if (/pass|secret|token|key/i.test(key)) u.searchParams.set(key, "***");
    return u.toString().replace("%2A%2A%2A", "***");
  } catch {
    return url.replace(/(\/\/[^:/@]*:)[^@]*@/, "$1***@").replace(/(password=)[^&\s]*/gi, "$1***");
  }
}

/** `text` with the URL's password (raw and URL-decoded) removed wherever it appears. */
export function redactPassword(text: string, url: string): string {
  let out = text.split(url).join(redactDatabaseUrl(url));
  try {
    const pw = new URL(url).password;
    for (const p of new Set([pw, decodeURIComponent(pw)])) if (p && p.length >= 3) out = out.split(p).join("***");
  } catch {
    // not a URL: nothing more to find
  }
  return out;
}

/** What became of a run when the team database went away under it (said after the cause). */
const outcomeText: Record<StoreWriteOutcome, string> = {
  "rolled-back": " The run was rolled back.",
  "rollback-pending": " The run failed; its changes are undone the next time deerflow on this machine reaches the database.",
  "nothing-changed": "",
};

/** The team database is unreachable or refuses us: exit 1 (runtime), URL without its password. */
export class DatabaseUnavailableError extends DeerflowError {
  constructor(url: string, cause: unknown, outcome: StoreWriteOutcome = "nothing-changed") {
    super(`The team database ${redactDatabaseUrl(url)} is not usable: ${redactPassword(describePgError(cause), url)}.${outcomeText[outcome]}`, {
      exitCode: ExitCode.runtime,
      hint: hintFor(cause),
    });
  }
}

function describePgError(err: unknown): string {
  const code = pgCode(err);
  const msg = (err instanceof Error ? err.message : String(err)).split("\n")[0]!;
  if (code === "ECONNREFUSED") return "connection refused (is PostgreSQL running there?)";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "the host name does not resolve";
  if (code === "28P01") return "the user name or password was rejected";
  // 28000 is also pg_hba.conf turning the connection away (no entry for this host/user/database, or not without
  // TLS): the server's own words say which.
  if (code === "28000") return msg;
  if (isTlsFault(err)) return `its TLS certificate was not accepted (${msg})`;
  if (code === "3D000") return msg; // database "x" does not exist
  if (code === "42501") return `permission denied (${msg})`;
  return msg || (code ?? "unknown error");
}

/** Node's TLS verdicts on the server's certificate (self-signed, unknown CA, wrong host name, expired). */
function isTlsFault(err: unknown): boolean {
  const code = pgCode(err) ?? "";
  return /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS/.test(code);
}

function hintFor(err: unknown): string {
  const code = pgCode(err);
  const msg = err instanceof Error ? err.message : String(err);
  if (code === "28P01") return "Check the user and password in `database` / DEERFLOW_DATABASE_URL.";
  if (code === "28000" && /no encryption/i.test(msg)) return "The server accepts this connection only over TLS: add `?sslmode=require` to the URL.";
  if (code === "28000") return "The server's pg_hba.conf does not let this user in from here: ask its administrator, or check the user and database in the URL.";
  if (isTlsFault(err)) return "Give the server's CA with `sslrootcert=/path/to/ca.crt` in the URL, or `sslmode=no-verify` to encrypt without checking who answers.";
  if (/does not support SSL/i.test(msg)) return "That server does not offer TLS: remove `sslmode` from the URL, or enable ssl on the server.";
  if (code === "57014") return "The server's statement_timeout cut a query short: raise it for deerflow's user (ALTER ROLE … SET statement_timeout = '60s').";
  if (code === "53100") return "The database server is out of disk space: free space there, then run it again.";
  if (code === "53300") return "The server has no connection slots left: raise max_connections, or run fewer deerflow processes at once.";
  if (code?.startsWith("53")) return "The database server is short of resources: check its logs, then run it again.";
  if (code?.startsWith("54")) return "A value is past a PostgreSQL limit: shorten what was sent (save large text as a workspace file) and run it again.";
  if (code === "42P01" || code === "42703")
    return "deerflow's schema there lacks what its recorded version has (a partial restore, a dropped table): restore the database from a backup, or point `database` at a new one and `deerflow db migrate` into it.";
  if (code === "25006") return "The server is read-only (a standby, or default_transaction_read_only): point `database` at the primary.";
  if (code === "3D000") return "Create it first (createdb), or fix the database name in the URL.";
  if (code === "42501") return "The user needs CREATE on the database (GRANT CREATE ON DATABASE … TO …).";
  return "Check that PostgreSQL is running and reachable at that host and port, then try again.";
}

/** Seconds a lease lasts without a heartbeat (DEERFLOW_LEASE_SECONDS; the heartbeat renews it every third of that). */
export function leaseSeconds(): number {
  const n = Number(process.env.DEERFLOW_LEASE_SECONDS);
  return Number.isFinite(n) && n >= 1 ? n : 30;
}

/** `database` is not a URL the driver can use (a bad port, a stray bracket): a configuration error, exit 2. */
export class DatabaseUrlError extends ConfigError {
  constructor(url: string, detail: string) {
    super(`The team database URL ${redactDatabaseUrl(url)} is not valid: ${redactPassword(detail, url)}.`, {
      hint: "Fix `database` in .deerflowrc (or DEERFLOW_DATABASE_URL): host, a port up to 65535, the database name, and special characters in the user or password percent-encoded.",
    });
  }
}

/**
 * Checks the URL as the driver parses it, before anything connects. Parsing also makes pg-connection-string warn,
 * once per process and over several lines of stderr, that sslmode=require will mean less in pg 9: deerflow keeps
 * today's meaning (the certificate is verified) and says what to do when one is refused, so the warning is dropped.
 */
function checkUrl(url: string): void {
  const emit = process.emitWarning;
  process.emitWarning = (() => {}) as typeof process.emitWarning;
  try {
    new pg.Client({ connectionString: url });
  } catch (err) {
    throw new DatabaseUrlError(url, (err instanceof Error ? err.message : String(err)).split("\n")[0]!);
  } finally {
    process.emitWarning = emit;
  }
}

/** Postgres text and jsonb cannot hold U+0000; NUL in a text parameter becomes U+FFFD (bytea values are Buffers, kept). */
function withoutNul(value: unknown): unknown {
  return typeof value === "string" && value.includes("\0") ? value.replaceAll("\0", "\uFFFD") : value;
}

/** A pool whose connections use deerflow's schema; errors of idle connections (a server restart) never crash us. */
export function openPool(url: string, max = 10): pg.Pool {
  checkUrl(url);
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // A transaction left open by a process that froze (a paused VM) would hold its row locks and block the machine
    // that takes its lease over: the server ends it once it has idled as long as a lease lasts.
    options: `-c search_path=${PG_SCHEMA} -c idle_in_transaction_session_timeout=${Math.ceil(leaseSeconds() * 1000)}`,
    connectionTimeoutMillis: 10_000,
    application_name: "deerflow",
  });
  pool.on("error", () => {
    // An idle client lost its server: the pool drops it and the next query reconnects.
  });
  // A client checked out when its server goes (a restart mid-transaction) emits 'error' with no pool listener, which
  // would crash the process; the query it was running fails instead, and that is retried.
  pool.on("connect", (client) => {
    client.on("error", () => {});
    // Every statement, ours and the stock saver's, passes here: a title, a prompt or an archived message with a NUL
    // byte in it is stored rather than failing the run.
    const send = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((text: unknown, values?: unknown, ...rest: unknown[]) => send(text, Array.isArray(values) ? values.map(withoutNul) : values, ...rest)) as typeof client.query;
  });
  // Single statements (ours and the stock saver's reads) ride out a restart here, so callers never wrap them again
  // (nested retries would multiply); transactions retry as a whole (withRetry around them).
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  pool.query = ((...args: unknown[]) => (typeof args.at(-1) === "function" ? query(...args) : withRetry(() => query(...args)))) as typeof pool.query;
  return pool;
}

/** `work`, retried with exponential backoff while the server cannot be reached (a restart takes seconds). */
export async function withRetry<T>(work: () => Promise<T>, opts: { attempts?: number; firstDelayMs?: number } = {}): Promise<T> {
  const attempts = opts.attempts ?? Number(process.env.DEERFLOW_DB_RETRIES ?? 6);
  let delay = opts.firstDelayMs ?? 200;
  for (let i = 1; ; i++) {
    try {
      return await work();
    } catch (err) {
      if (i >= attempts || !isConnectionFault(err)) throw err;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5_000);
    }
  }
}

/**
 * `deerflow doctor`'s look at a team database, without changing it: reachable (and the server's version), and the
 * schema version against this deerflow's. One line; the URL never with its password.
 */
export async function checkTeamDatabase(url: string): Promise<{ ok: boolean; detail: string }> {
  const pool = openPool(url, 1);
  const known = PG_MIGRATIONS.length;
  try {
    const { rows } = await pool.query<{ server: string; has: boolean }>("SELECT current_setting('server_version') AS server, to_regclass($1) IS NOT NULL AS has", [`${PG_SCHEMA}.${VERSION_TABLE}`]);
    const where = `team database ${redactDatabaseUrl(url)} (PostgreSQL ${rows[0]!.server})`;
    if (!rows[0]!.has) return { ok: true, detail: `${where} is reachable; no deerflow schema yet (created on the first run)` };
    const v = await schemaVersion(pool);
    if (v > known) return { ok: false, detail: `${where} holds schema version ${v}, newer than this deerflow knows (${known}): upgrade deerflow on this machine` };
    return { ok: true, detail: `${where} is reachable, schema version ${v}${v < known ? ` (migrated to ${known} on the next run)` : ""}` };
  } catch (err) {
    return { ok: false, detail: formatErrorLine(new DatabaseUnavailableError(url, err)) };
  } finally {
    await pool.end().catch(() => {});
  }
}
