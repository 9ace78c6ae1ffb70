// Which store a home uses: a team database when `database` (or DEERFLOW_DATABASE_URL) is a postgres:// URL,
// else the home's SQLite file. Opening a team database connects lazily: the first query creates or migrates the
// schema, so opening stays synchronous for the runtime and nothing connects for commands that never read.
import type { ChannelMode } from "../vocabulary/checkpoint-modes.js";
import { openPool, redactDatabaseUrl } from "./postgres-connection.js";
import { DeerflowPostgresSaver } from "./postgres-saver.js";
import { PgMessageArchive } from "./postgres-message-archive.js";
import { PgRunRecords, PgThreadIndex, applyPgPendingRollbacks, deletePgThreadRows } from "./postgres-store.js";
import { type Store, openSqliteStore } from "./store.js";

export interface StoreLocation {
  home: string;
  channelMode: ChannelMode;
  /** A postgres:// URL: the team database. */
  database?: string;
}

export function openStore(where: StoreLocation): Store {
  return where.database ? openPostgresStore(where.database, where.channelMode, where.home) : openSqliteStore(where.home, where.channelMode);
}

/** The team database; with `home`, the runs this home could not roll back while it was gone are undone on first use. */
export function openPostgresStore(url: string, channelMode: ChannelMode, home?: string): Store {
  const path = redactDatabaseUrl(url);
  const saver: DeerflowPostgresSaver = new DeerflowPostgresSaver(openPool(url), {
    channelMode,
    url,
    onReady: home ? () => applyPgPendingRollbacks(saver, home, path) : undefined,
    // A run whose lease was taken over writes nothing more.
    beforeWrite: (threadId) => runs.assertHeld(threadId),
    fenceIn: (client, threadId) => runs.fenceIn(client, threadId),
  });
  const runs = new PgRunRecords(saver);
  return {
    kind: "postgres",
    path,
    saver,
    threads: new PgThreadIndex(saver, runs),
    runs,
    archive: new PgMessageArchive(saver, runs),
    rewinds: undefined,
    sqlite: undefined,
    deleteThreadRows: (threadId) => deletePgThreadRows(saver, threadId),
    close: async () => {
      runs.close();
      await saver.close();
    },
  };
}
