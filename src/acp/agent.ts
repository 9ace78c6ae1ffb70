// `deerflow acp`'s agent: the ACP methods on the SDK's agent API, each handed to the part that does it
// (initialize.ts; sessions.ts binds sessions to threads, session-list.ts lists them; acp-session.ts runs prompt
// turns). Sessions are threads: a session id is a thread id, so `deerflow resume <id>` opens in the terminal what the
// editor started.
import * as acp from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import { type ResolvedModel, loadConfig, requireModel } from "../config/load.js";
import { findDeerflowError, formatErrorLine } from "../errors.js";
import { initializeResponse } from "./initialize.js";
import { listSessions } from "./session-list.js";
import { AcpSessions, type SessionDefaults } from "./sessions.js";

export type AcpAgentOptions = SessionDefaults & {
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

/** The configured model, if there is one (initialize says what it takes). */
function configuredModel(opts: AcpAgentOptions): ResolvedModel | undefined {
  try {
    return requireModel(loadConfig({ flags: { home: opts.home, model: opts.model } }));
  } catch {
    return undefined;
  }
}

export function acpAgent(opts: AcpAgentOptions) {
  const { version, log, ...defaults } = opts;
  const sessions = new AcpSessions(defaults, log);
  const app = acp
    .agent({ name: "deerflow" })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      sessions.clientCapabilities = params.clientCapabilities;
      return initializeResponse(params, { version, model: configuredModel(opts) });
    })
    .onRequest(acp.methods.agent.authenticate, () => {
      throw RequestError.invalidParams(undefined, "deerflow has no sign-in: configure the model in .deerflowrc or the environment (`deerflow doctor` checks it).");
    })
    .onRequest(acp.methods.agent.session.new, ({ params, client }) =>
      answering(async () => {
        const session = await sessions.open(params, client);
        return { sessionId: session.id, modes: session.modes() };
      }),
    )
    .onRequest(acp.methods.agent.session.load, ({ params, client }) => answering(async () => ({ modes: (await sessions.load(params, client)).modes() })))
    .onRequest(acp.methods.agent.session.resume, ({ params, client }) => answering(async () => ({ modes: (await sessions.resume(params, client)).modes() })))
    .onRequest(acp.methods.agent.session.list, ({ params }) => answering(() => listSessions(params, opts.home)))
    .onRequest(acp.methods.agent.session.close, ({ params }) => answering(async () => (await sessions.close(params.sessionId), {})))
    .onRequest(acp.methods.agent.session.setMode, ({ params, client }) =>
      answering(async () => {
        sessions.get(params.sessionId).setMode(params.modeId);
        await client.notify("session/update", { sessionId: params.sessionId, update: { sessionUpdate: "current_mode_update", currentModeId: params.modeId } });
        return {};
      }),
    )
    .onRequest(acp.methods.agent.session.prompt, ({ params, client, signal }) => answering(() => sessions.get(params.sessionId).prompt(params.prompt, client, signal)))
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => sessions.cancel(params.sessionId));
  return { app, close: () => sessions.closeAll() };
}
