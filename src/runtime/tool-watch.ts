// Whether a run started any tool. One that started none changed no file, so its end needs no snapshot of the
// workspace (a `git status` of every file: see workspace-snapshots.ts). Seen where LangChain starts each tool — the
// agent's, a subagent's, an MCP server's — and awaited there, not read from the event stream, which a run cut short
// may not drain. Awaited, it is also where a tool waits for the snapshot from before the run (early-snapshot.ts).
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";

export class ToolWatch extends BaseCallbackHandler {
  name = "deerflow_tool_watch";
  override awaitHandlers = true;
  started = false;
  /** Settles once the workspace's snapshot from before the run is taken; no tool starts before. */
  gate: Promise<unknown> = Promise.resolve();

  override async handleToolStart(): Promise<void> {
    this.started = true;
    await this.gate;
  }
}
