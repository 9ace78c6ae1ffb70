// PostgreSQL's failures by kind, from their codes (node's socket errors and SQLSTATE), without loading the driver: the
// SQLite store's write-failure check reads them too.
import { errorChain } from "../vocabulary/error-chain.js";

/** PostgreSQL cannot be reached or talked to right now (refused, reset, restarting, timed out): worth retrying. */
export function isConnectionFault(err: unknown): boolean {
  return errorChain(err).some((e) => {
    const code = (e as { code?: unknown } | null)?.code;
    if (typeof code !== "string")
      return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test((e as Error)?.message ?? "");
    // 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 25P03 idle-in-transaction timeout (a
    // frozen process woken), 08xxx connection exceptions.
    return ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENOTFOUND", "EAI_AGAIN", "57P01", "57P02", "57P03", "25P03"].includes(code) || code.startsWith("08");
  });
}

/**
 * The server refused a statement for a reason that is its own, not ours (SQLSTATE): out of disk, memory or
 * connections (class 53), a value past its limits (54), the server's statement_timeout (57014), a read-only server
 * (25006: a standby, default_transaction_read_only), a missing privilege (42501), deerflow's schema missing a table
 * or column its recorded version has (42P01, 42703: a partial restore, a manual DROP). Like a full disk under SQLite:
 * the run fails in one line saying which, and is rolled back.
 */
export function isServerRefusal(err: unknown): boolean {
  const code = pgCode(err);
  return code !== undefined && /^(53|54)|^(57014|25006|42501|42P01|42703)$/.test(code);
}

export function pgCode(err: unknown): string | undefined {
  for (const e of errorChain(err)) {
    const code = (e as { code?: unknown } | null)?.code;
    if (typeof code === "string") return code;
  }
  return undefined;
}
