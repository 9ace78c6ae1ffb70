// Whether a run started any tool. One that started none changed no file, so its end needs no snapshot of the
// workspace (a `git status` of every file: see workspace-snapshots.ts). Seen where LangChain starts each tool — the
// agent's, a subagent's, an MCP server's — and awaited there, not read from the event stream, which a run cut short
// may not drain.
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";

export class ToolWatch extends BaseCallbackHandler {
  name = "deerflow_tool_watch";
  override awaitHandlers = true;
  started = false;

  override handleToolStart(): void {
    this.started = true;
  }
}
