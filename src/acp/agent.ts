// `deerflow acp`'s agent: the ACP methods on the SDK's agent API, each handed to the part that does it
// (initialize.ts, the sessions below, acp-session.ts for prompt turns, load-replay.ts). Sessions are threads: a
// session id is a thread id, so `deerflow resume <id>` opens in the terminal what the editor started.
import { isAbsolute } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { type McpServer, RequestError } from "@agentclientprotocol/sdk";
import { loadConfig, requireModel } from "../config/load.js";
import { findDeerflowError, formatErrorLine } from "../errors.js";
import { type ChatSession, type ChatSessionOptions, createChatSession } from "../runtime/chat-session.js";
import { AcpSession } from "./acp-session.js";
import { clientMcpServers } from "./client-mcp.js";
import { availableCommandsOf } from "./commands.js";
import { initializeResponse } from "./initialize.js";
import { replayOf } from "./load-replay.js";

/** What every session takes from the command line (the CLI's flags), beside the client's cwd. */
export type AcpAgentOptions = Pick<ChatSessionOptions, "home" | "model" | "approval" | "noNetwork" | "noMemory" | "allowUnconfined"> & {
  version: string;
  /** Where a line for the user goes (stderr: stdout carries only protocol). */
  log: (line: string) => void;
};

/** A deerflow error as a JSON-RPC error with its one line (what was wrong and what to do); never a stack trace. */
function asRequestError(err: unknown): unknown {
  if (err instanceof RequestError) return err;
  const typed = findDeerflowError(err);
  return typed ? RequestError.invalidParams(undefined, formatErrorLine(typed)) : RequestError.internalError(undefined, formatErrorLine(err));
}

async function answering<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw asRequestError(err);
  }
}

function modelConfigured(opts: AcpAgentOptions): boolean {
  try {
    requireModel(loadConfig({ flags: { home: opts.home, model: opts.model } }));
    return true;
  } catch {
    return false;
  }
}

function checkedCwd(cwd: string): string {
  if (!isAbsolute(cwd)) throw RequestError.invalidParams(undefined, `The session's cwd must be an absolute path (got "${cwd}").`);
  return cwd;
}

export function acpAgent(opts: AcpAgentOptions) {
  const sessions = new Map<string, AcpSession>();
  const chatFor = (cwd: string, servers: readonly McpServer[], workspace?: string): ChatSession => {
    const configured = Object.keys(loadConfig({ cwd, flags: { home: opts.home } }).mcp.servers);
    const mcpServers = clientMcpServers(servers, cwd, configured, opts.log);
    return createChatSession({
      home: opts.home,
      model: opts.model,
      approval: opts.approval,
      noNetwork: opts.noNetwork,
      noMemory: opts.noMemory,
      allowUnconfined: opts.allowUnconfined,
      cwd,
      workspace,
      mcpServers,
    });
  };
  const sessionOf = (id: string): AcpSession => {
    const s = sessions.get(id);
    if (!s) throw RequestError.resourceNotFound(id);
    return s;
  };

  const app = acp
    .agent({ name: "deerflow" })
    .onRequest(acp.methods.agent.initialize, ({ params }) => initializeResponse(params, { version: opts.version, modelConfigured: modelConfigured(opts) }))
    .onRequest(acp.methods.agent.authenticate, () => {
      throw RequestError.invalidParams(undefined, "deerflow has no sign-in: configure the model in .deerflowrc or the environment (`deerflow doctor` checks it).");
    })
    .onRequest(acp.methods.agent.session.new, ({ params, client }) =>
      answering(async () => {
        const cwd = checkedCwd(params.cwd);
        // The client's cwd is the workspace, with the CLI's refusals ($HOME, /, the data directory, an untrusted .deerflowrc).
        const chat = chatFor(cwd, params.mcpServers, cwd);
        await chat.ensureThread();
        const session = new AcpSession(chat.threadId!, chat, opts.log);
        sessions.set(session.id, session);
        // After the answer: the update names a session the client knows.
        setImmediate(() => void client.notify("session/update", { sessionId: session.id, update: availableCommandsOf(chat.skills) }).catch(() => undefined));
        return { sessionId: session.id, modes: session.modes() };
      }),
    )
    .onRequest(acp.methods.agent.session.load, ({ params, client }) =>
      answering(async () => {
        const cwd = checkedCwd(params.cwd);
        sessions.get(params.sessionId)?.cancel();
        const chat = chatFor(cwd, params.mcpServers);
        const view = await chat.resume({ threadId: params.sessionId });
        const notice = chat.workspaceNotice();
        if (notice) opts.log(notice);
        const session = new AcpSession(view.thread.id, chat, opts.log);
        sessions.set(session.id, session);
        for (const update of [...replayOf(view, chat.currentWorkspace() ?? cwd), availableCommandsOf(chat.skills)]) await client.notify("session/update", { sessionId: session.id, update });
        return { modes: session.modes() };
      }),
    )
    .onRequest(acp.methods.agent.session.setMode, ({ params, client }) =>
      answering(async () => {
        const session = sessionOf(params.sessionId);
        session.setMode(params.modeId);
        await client.notify("session/update", { sessionId: session.id, update: { sessionUpdate: "current_mode_update", currentModeId: params.modeId } });
        return {};
      }),
    )
    .onRequest(acp.methods.agent.session.prompt, ({ params, client, signal }) => answering(() => sessionOf(params.sessionId).prompt(params.prompt, client, signal)))
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });
  /** Every running turn stopped, and settled (its checkpoint written) before the process closes its stores. */
  const close = async () => {
    for (const s of sessions.values()) s.cancel();
    await Promise.all([...sessions.values()].map((s) => s.running));
  };
  return { app, close };
}
