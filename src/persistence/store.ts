// One SQLite file per home: <home>/deerflow.sqlite holds the checkpoints and the thread index (WAL mode).
import { join } from "node:path";
import type { ChannelMode } from "../vocabulary/checkpoint-modes.js";
import { DeerflowSqliteSaver } from "./sqlite-saver.js";
import { RunRecords } from "./run-records.js";
import { ThreadIndex } from "./thread-index.js";

export const DB_FILE = "deerflow.sqlite";

export interface Store {
  path: string;
  saver: DeerflowSqliteSaver;
  threads: ThreadIndex;
  runs: RunRecords;
  close(): void;
}

export function openStore(home: string, channelMode: ChannelMode): Store {
  const path = join(home, DB_FILE);
  const saver = DeerflowSqliteSaver.open(path, { channelMode });
  const threads = new ThreadIndex(saver.db);
  const runs = new RunRecords(saver.db);
  return { path, saver, threads, runs, close: () => saver.close() };
}
