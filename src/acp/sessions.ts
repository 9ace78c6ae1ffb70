// Session binding: an ACP session is a thread. `session/new` binds a new thread to the client's cwd (the CLI's
// workspace rules and refusals, through ChatSession), `session/load` opens an existing one and replays it,
// `session/resume` opens one without the replay (the editor still shows it); all start the client's MCP servers
// beside the configured ones. `session/close` stops the session's turn and forgets it (the thread stays). Each
// session is an AcpSession over its own ChatSession.
import { isAbsolute } from "node:path";
import {
  type AgentContext,
  type ClientCapabilities,
  type LoadSessionRequest,
  type McpServer,
  type NewSessionRequest,
  RequestError,
  type ResumeSessionRequest,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { loadConfig } from "../config/load.js";
import { type ChatSession, type ChatSessionOptions, createChatSession } from "../runtime/chat-session.js";
import { AcpSession } from "./acp-session.js";
import { clientMcpServers } from "./client-mcp.js";
import { availableCommandsOf } from "./commands.js";
import { replayOf } from "./load-replay.js";

/** What every session takes from the command line (the CLI's flags), beside the client's cwd. */
export type SessionDefaults = Pick<ChatSessionOptions, "home" | "model" | "approval" | "noNetwork" | "noMemory" | "allowUnconfined">;

function checkedCwd(cwd: string): string {
  if (!isAbsolute(cwd)) throw RequestError.invalidParams(undefined, `The session's cwd must be an absolute path (got "${cwd}").`);
  return cwd;
}

export class AcpSessions {
  private readonly sessions = new Map<string, AcpSession>();
  /** What the client offered in initialize: its file system is used by every session it opens. */
  clientCapabilities: ClientCapabilities | undefined;

  constructor(
    private readonly defaults: SessionDefaults,
    private readonly log: (line: string) => void,
  ) {}

  private chatFor(cwd: string, servers: readonly McpServer[], workspace?: string): ChatSession {
    const configured = Object.keys(loadConfig({ cwd, flags: { home: this.defaults.home } }).mcp.servers);
    return createChatSession({ ...this.defaults, cwd, workspace, mcpServers: clientMcpServers(servers, configured, this.log) });
  }

  get(id: string): AcpSession {
    const s = this.sessions.get(id);
    if (!s) throw RequestError.resourceNotFound(id);
    return s;
  }

  cancel(id: string): void {
    this.sessions.get(id)?.cancel();
  }

  /** session/new: a new thread working in the client's cwd ($HOME, /, the data directory, an untrusted .deerflowrc refused). */
  async open(params: NewSessionRequest, client: AgentContext): Promise<AcpSession> {
    const cwd = checkedCwd(params.cwd);
    const chat = this.chatFor(cwd, params.mcpServers, cwd);
    await chat.ensureThread();
    const session = new AcpSession(chat.threadId!, chat, this.log, this.clientCapabilities);
    this.sessions.set(session.id, session);
    // After the answer: the update names a session the client knows.
    setImmediate(() => void client.notify("session/update", { sessionId: session.id, update: availableCommandsOf(chat.skills, chat.commands) }).catch(() => undefined));
    return session;
  }

  /** session/load: the thread as it was left, replayed to the client, then continued by the next prompt. */
  load(params: LoadSessionRequest, client: AgentContext): Promise<AcpSession> {
    return this.reopen(params, client, true);
  }

  /** session/resume: the thread continued by the next prompt, without telling the client its history again. */
  resume(params: ResumeSessionRequest, client: AgentContext): Promise<AcpSession> {
    return this.reopen(params, client, false);
  }

  private async reopen(params: ResumeSessionRequest, client: AgentContext, replay: boolean): Promise<AcpSession> {
    const cwd = checkedCwd(params.cwd);
    this.cancel(params.sessionId);
    const chat = this.chatFor(cwd, params.mcpServers ?? []);
    const view = await chat.resume({ threadId: params.sessionId });
    const notice = chat.workspaceNotice();
    if (notice) this.log(notice);
    const session = new AcpSession(view.thread.id, chat, this.log, this.clientCapabilities);
    this.sessions.set(session.id, session);
    const updates: SessionUpdate[] = [...(replay ? replayOf(view, chat.currentWorkspace() ?? cwd) : []), availableCommandsOf(chat.skills, chat.commands)];
    for (const update of updates) await client.notify("session/update", { sessionId: session.id, update });
    return session;
  }

  /** session/close: the session's turn stopped and settled (its checkpoint written), then the session forgotten. */
  async close(id: string): Promise<void> {
    const session = this.get(id);
    session.cancel();
    await session.running;
    this.sessions.delete(id);
  }

  /** Every running turn stopped, and settled (its checkpoint written) before the process closes its stores. */
  async closeAll(): Promise<void> {
    for (const s of this.sessions.values()) s.cancel();
    await Promise.all([...this.sessions.values()].map((s) => s.running));
  }
}
