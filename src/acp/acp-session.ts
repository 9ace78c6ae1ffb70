// One ACP session: a ChatSession (the same runtime, broker and modes as the TUI) bound to one thread, whose id is
// the session id. A prompt is one turn: its RunEvents stream to the client as session updates, its approvals go to
// the client as permission requests, its file reads and edits go through the editor when it offers its file system
// (client-fs.ts), and session/cancel stops it as esc does in the TUI (the checkpoint kept).
import { type AgentContext, type ClientCapabilities, type ContentBlock, type PromptResponse, RequestError, type SessionUpdate } from "@agentclientprotocol/sdk";
import type { ChatSession } from "../runtime/chat-session.js";
import type { RunEvent } from "../runtime/events.js";
import type { ApprovalRequestedEvent } from "../sandbox/approvals.js";
import { withEditorFiles } from "../tools/editor-files.js";
import { clientFilesOf } from "./client-fs.js";
import { invokedSkill } from "./commands.js";
import { isApprovalMode, modeStateOf } from "./modes.js";
import { APPROVAL_MODES } from "../vocabulary/approval-modes.js";
import { modeAfterPlan } from "../vocabulary/plan-mode.js";
import { decisionOf, permissionRequestOf } from "./permission-bridge.js";
import { savedImages } from "./prompt-images.js";
import { attachTextOf, promptTextOf } from "./prompt-text.js";
import { TurnUpdates } from "./session-updates.js";
import { acpStopReason } from "./stop-reason.js";

export class AcpSession {
  private turn: AbortController | undefined;
  /** The running turn, settled or not (the agent waits for it before the process closes its stores). */
  running: Promise<unknown> = Promise.resolve();

  constructor(
    readonly id: string,
    readonly chat: ChatSession,
    /** A line for the person (stderr): what the terminal would show beside the conversation. */
    private readonly log: (line: string) => void,
    /** What the client offered in initialize (its file system, when it has one, is used: client-fs.ts). */
    private readonly clientCapabilities?: ClientCapabilities,
  ) {}

  modes() {
    return modeStateOf(this.chat.approval.mode);
  }

  /** session/set_mode: an approval mode, refused (with why) when yolo is not confined. */
  setMode(modeId: string): void {
    if (!isApprovalMode(modeId)) throw RequestError.invalidParams(undefined, `Unknown mode "${modeId}": use ${APPROVAL_MODES.join(", ")}.`);
    const refused = this.chat.setApprovalMode(modeId);
    if (refused) throw RequestError.invalidParams(undefined, refused);
  }

  /** session/cancel: the running turn stops; its pending permission requests are withdrawn. */
  cancel(): void {
    this.turn?.abort();
  }

  prompt(blocks: ContentBlock[], client: AgentContext, requestSignal: AbortSignal): Promise<PromptResponse> {
    const turn = this.runTurn(blocks, client, requestSignal);
    this.running = turn.catch(() => undefined);
    return turn;
  }

  private async runTurn(blocks: ContentBlock[], client: AgentContext, requestSignal: AbortSignal): Promise<PromptResponse> {
    if (this.turn) throw RequestError.invalidRequest(undefined, "A prompt is already running in this session: wait for it, or send session/cancel.");
    const turn = new AbortController();
    this.turn = turn;
    // Set before the first await: a second prompt meanwhile is refused, not run beside this one.
    const prompt = await savedImages(blocks, this.chat)
      .then((images) => promptTextOf(blocks, images))
      .catch((err: unknown) => {
        this.turn = undefined;
        throw err;
      });
    const onRequestAbort = () => turn.abort();
    requestSignal.addEventListener("abort", onRequestAbort, { once: true });
    // Updates go out in the order the run made them, each after the one before: a result never overtakes its call.
    let sent: Promise<unknown> = Promise.resolve();
    const send = (update: SessionUpdate) => {
      sent = sent.then(() => client.notify("session/update", { sessionId: this.id, update })).catch(() => undefined);
    };
    const updates = new TurnUpdates(this.chat.currentWorkspace() ?? undefined);
    // The context the next model call starts from (the last call's input and answer): the editor's context meter.
    let used: number | undefined;
    const onEvent = (e: RunEvent) => {
      if (e.type === "approval.requested") void this.askClient(e, client, turn.signal, updates.workspace);
      else if (e.type === "message.completed" && e.usage) used = e.usage.input_tokens + e.usage.output_tokens;
      else if (e.type === "mcp.failed") this.log(`MCP server ${e.server}: ${e.message}`);
      else if (e.type === "sandbox.warning" || e.type === "snapshot.warning") this.log(e.message);
      else for (const u of updates.updates(e)) send(u);
    };
    try {
      const files = clientFilesOf(this.clientCapabilities, client, this.id, turn.signal, this.log);
      const input = { prompt, attach: attachTextOf(blocks), skill: invokedSkill(prompt, this.chat.skills) };
      const { result } = await withEditorFiles(files, () => this.chat.send(input, onEvent, turn.signal)).catch((err: unknown) => {
        // A cancelled turn ends as ACP says (stopReason cancelled), not as the run's interruption error.
        if (turn.signal.aborted) return { result: { status: "interrupted" as const, stop_reason: "interrupted" as const, error: undefined } };
        throw err;
      });
      if (used !== undefined) send({ sessionUpdate: "usage_update", used, size: await this.chat.contextWindow() });
      await sent;
      if (turn.signal.aborted || result.status === "interrupted") return { stopReason: "cancelled" };
      if (result.status === "error") throw RequestError.internalError(undefined, result.error ?? "The run failed; the thread is kept, and the next prompt continues it.");
      return { stopReason: acpStopReason(result.stop_reason) };
    } finally {
      requestSignal.removeEventListener("abort", onRequestAbort);
      this.turn = undefined;
    }
  }

  /** One approval through the client; a cancelled turn withdraws the question ($/cancel_request). */
  private async askClient(e: ApprovalRequestedEvent, client: AgentContext, signal: AbortSignal, workspace: string | undefined): Promise<void> {
    try {
      const response = await client.request("session/request_permission", permissionRequestOf(this.id, e, workspace), { cancellationSignal: signal });
      const decision = decisionOf(response);
      this.chat.respondApproval(e.id, decision);
      // An approved plan ended plan mode (middleware/plan-mode.ts): the editor's mode picker follows.
      if (e.kind === "plan" && decision !== "deny")
        await client.notify("session/update", { sessionId: this.id, update: { sessionUpdate: "current_mode_update", currentModeId: modeAfterPlan(decision) } });
    } catch {
      // The client failed or withdrew the question: nothing runs that the user did not allow.
      this.chat.respondApproval(e.id, "deny");
    }
  }
}
