// The official checkpoint-validation suite (its CLI is broken in 1.1.1; it is a library here),
// against DeerflowSqliteSaver on real SQLite files: one file per checkpointer instance.
import { deltaChannelHistoryTests, validate } from "@langchain/langgraph-checkpoint-validation";
import { expect } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DeerflowSqliteSaver } from "../../src/persistence/index.js";
import type { ChannelMode } from "../../src/vocabulary/checkpoint-modes.js";
import { tempDir } from "./helpers.js";

function initializer(channelMode: ChannelMode) {
  const { dir, cleanup } = tempDir();
  const files = new Map<DeerflowSqliteSaver, string>();
  let n = 0;
  return {
    checkpointerName: `DeerflowSqliteSaver (${channelMode})`,
    createCheckpointer(): DeerflowSqliteSaver {
      const file = join(dir, `checkpoints-${n++}`, "db.sqlite");
      const saver = DeerflowSqliteSaver.open(file, { channelMode });
      files.set(saver, file);
      return saver;
    },
    destroyCheckpointer(saver: DeerflowSqliteSaver): void {
      saver.close();
      const file = files.get(saver)!;
      expect(existsSync(file)).toBe(true);
      files.delete(saver);
    },
    afterAll: cleanup,
  };
}

validate(initializer("full"));
deltaChannelHistoryTests(initializer("full"));
validate(initializer("delta"));
deltaChannelHistoryTests(initializer("delta"));
