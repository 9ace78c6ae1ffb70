// A thread's stored delegation ledger, read back from its checkpoint file as the lead agent sees it.
import { fakeModel } from "langchain";
import { createLeadAgent } from "../../src/agent/lead-agent.js";
import { openSqliteStore } from "../../src/persistence/store.js";
import { headlessBroker } from "../../src/sandbox/approvals.js";

/** The delegations of `threadId` in the SQLite store under `home` (new threads are delta, the default mode). */
export async function storedLedger(home: string, threadId: string): Promise<any[]> {
  const store = openSqliteStore(home, "delta");
  try {
    const agent = createLeadAgent({ model: fakeModel(), checkpointer: store.saver, channelMode: "delta", approval: { mode: "ask", broker: headlessBroker({ yes: false }) } });
    return ((await agent.graph.getState({ configurable: { thread_id: threadId } } as never)).values as { delegations: any[] }).delegations;
  } finally {
    store.close();
  }
}
