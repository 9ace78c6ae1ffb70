// A store fault as the user should read it: the database's path (or the team database) and what to do. Errors
// that already say what they are pass through.
import { DatabaseCorruptError, StoreWriteError, type StoreWriteOutcome, findDeerflowError } from "../errors.js";
import { isCorruption, isStoreWriteFailure, sqliteCode } from "../persistence/store.js";
import { DatabaseUnavailableError, isConnectionFault } from "../persistence/postgres-connection.js";

export function typedStoreError(err: unknown, outcome: StoreWriteOutcome, where: { database?: string; storePath: string }): unknown {
  if (findDeerflowError(err)) return err;
  if (where.database && (isConnectionFault(err) || isStoreWriteFailure(err))) return new DatabaseUnavailableError(where.database, err, outcome);
  if (isCorruption(err)) return new DatabaseCorruptError(where.storePath, (err as Error).message);
  if (isStoreWriteFailure(err)) return new StoreWriteError(where.storePath, (err as Error).message, outcome, sqliteCode(err)?.startsWith("SQLITE_READONLY"));
  return err;
}
