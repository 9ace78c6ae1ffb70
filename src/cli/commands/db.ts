// `deerflow db migrate --from sqlite --to postgres://…`: copies the home's threads into a team database, each read
// back before it is listed there. Threads of both channel modes are copied (each through savers of its mode).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../config/load.js";
import { refuseUntrusted } from "../../config/project-trust.js";
import { UsageError } from "../../errors.js";
import { type CopyReport, copyThreads } from "../../persistence/copy-threads.js";
import { openPostgresStore } from "../../persistence/open-store.js";
import { DatabaseUnavailableError, isConnectionFault, isServerRefusal, isPostgresUrl, redactDatabaseUrl } from "../../persistence/postgres-connection.js";
import { DB_FILE, openSqliteStore } from "../../persistence/store.js";
import { CHANNEL_MODES } from "../../vocabulary/checkpoint-modes.js";
import type { GlobalOptions } from "../main.js";
import { jsonText } from "../../vocabulary/terminal-text.js";

export async function dbMigrateCommand(opts: GlobalOptions & { from?: string; to?: string; json?: boolean }): Promise<number> {
  const config = loadConfig({ flags: { home: opts.home, model: opts.model } });
  refuseUntrusted(config.untrusted);
  if (opts.from !== "sqlite") throw new UsageError(`--from must be "sqlite" (the home's database file), not ${JSON.stringify(opts.from ?? "")}.`);
  const to = opts.to ?? config.database;
  if (!isPostgresUrl(to))
    throw new UsageError("--to must be a postgres:// URL (or set `database` / DEERFLOW_DATABASE_URL).", "Example: deerflow db migrate --from sqlite --to postgres://deerflow@db.internal/deerflow");
  if (!existsSync(join(config.home, DB_FILE))) throw new UsageError(`There is no SQLite database in ${config.home} to migrate.`);
  const report: CopyReport = { copied: [], skipped: [], checkpoints: 0 };
  for (const mode of CHANNEL_MODES) {
    const from = openSqliteStore(config.home, mode);
    const target = openPostgresStore(to, mode);
    try {
      await copyThreads(from, target, report);
    } catch (err) {
      throw isConnectionFault(err) || isServerRefusal(err) ? new DatabaseUnavailableError(to, err) : err;
    } finally {
      from.close();
      await target.close();
    }
  }
  if (opts.json) process.stdout.write(`${jsonText({ to: redactDatabaseUrl(to), ...report }, 2)}\n`);
  else {
    process.stdout.write(
      `Copied ${report.copied.length} thread(s) (${report.checkpoints} checkpoints) to ${redactDatabaseUrl(to)}, each verified by reading it back.${report.skipped.length ? ` ${report.skipped.length} already there, skipped.` : ""}\n`,
    );
    process.stdout.write(`Use it: set "database" in .deerflowrc (or DEERFLOW_DATABASE_URL). The SQLite file is left as it was.\n`);
  }
  return 0;
}
