// The official checkpoint-validation suite against DeerflowPostgresSaver on a real PostgreSQL server, in both channel
// modes (the same suite the SQLite saver passes). Every checkpointer starts on an empty database: one the file
// created and migrated once, emptied since the last checkpointer used it (reusableDatabases: ~70 checkpointers in
// ~1 database instead of ~70 CREATE DATABASE, migrate and DROP DATABASE cycles).
import { deltaChannelHistoryTests, validate } from "@langchain/langgraph-checkpoint-validation";
import { afterAll, describe, vi } from "vitest";
import { DeerflowPostgresSaver } from "../../src/persistence/postgres-saver.js";
import { openPool } from "../../src/persistence/postgres-connection.js";
import type { ChannelMode } from "../../src/vocabulary/checkpoint-modes.js";
import { pgSkip, reusableDatabases } from "../support/postgres.js";

// CREATE DATABASE on a loaded machine can take longer than the default hook limit.
vi.setConfig({ hookTimeout: 180_000, testTimeout: 180_000 });
if (pgSkip) console.warn(`postgres-validation skipped: ${pgSkip}`);

const databases = reusableDatabases("dfval");
afterAll(() => databases.dropAll());

function initializer(channelMode: ChannelMode) {
  const used = new Map<DeerflowPostgresSaver, { name: string }>();
  return {
    checkpointerName: `DeerflowPostgresSaver (${channelMode})`,
    async createCheckpointer(): Promise<DeerflowPostgresSaver> {
      const db = await databases.take();
      const saver = new DeerflowPostgresSaver(openPool(db.url), { channelMode });
      await saver.setup();
      used.set(saver, db);
      return saver;
    },
    async destroyCheckpointer(saver: DeerflowPostgresSaver): Promise<void> {
      await saver.close();
      databases.give(used.get(saver)!);
      used.delete(saver);
    },
  };
}

// Without a server (never in CI: DEERFLOW_REQUIRE_PG fails the global setup instead) the suite shows as skipped.
describe.skipIf(Boolean(pgSkip))("DeerflowPostgresSaver", () => {
  validate(initializer("full"));
  deltaChannelHistoryTests(initializer("full"));
  validate(initializer("delta"));
  deltaChannelHistoryTests(initializer("delta"));
});
