// The official checkpoint-validation suite against DeerflowPostgresSaver on a real PostgreSQL server: one throwaway
// database per checkpointer instance, in both channel modes (the same suite the SQLite saver passes).
import { deltaChannelHistoryTests, validate } from "@langchain/langgraph-checkpoint-validation";
import { describe, vi } from "vitest";
import { DeerflowPostgresSaver } from "../../src/persistence/postgres-saver.js";
import { openPool } from "../../src/persistence/postgres-connection.js";
import type { ChannelMode } from "../../src/vocabulary/checkpoint-modes.js";
import { createTestDatabase, pgSkip } from "../support/postgres.js";

// Each checkpointer gets its own database: CREATE DATABASE on a loaded machine can take longer than the default hook limit.
vi.setConfig({ hookTimeout: 180_000, testTimeout: 180_000 });
if (pgSkip) console.warn(`postgres-validation skipped: ${pgSkip}`);

function initializer(channelMode: ChannelMode) {
  const drops = new Map<DeerflowPostgresSaver, () => Promise<void>>();
  return {
    checkpointerName: `DeerflowPostgresSaver (${channelMode})`,
    async createCheckpointer(): Promise<DeerflowPostgresSaver> {
      const db = await createTestDatabase("dfval");
      const saver = new DeerflowPostgresSaver(openPool(db.url), { channelMode });
      await saver.setup();
      drops.set(saver, db.drop);
      return saver;
    },
    async destroyCheckpointer(saver: DeerflowPostgresSaver): Promise<void> {
      await saver.close();
      await drops.get(saver)!();
      drops.delete(saver);
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
