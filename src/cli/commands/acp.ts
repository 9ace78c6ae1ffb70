// `deerflow acp`: the Agent Client Protocol agent on stdio, for editors (Zed, JetBrains, Neovim, Emacs; docs/acp.md).
// stdout carries nothing but protocol messages: anything else written to it (a stray log line) goes to stderr,
// where every line for the user goes. The agent drives the same runtime as the chat (src/acp).
import { Readable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { acpAgent } from "../../acp/agent.js";
import { closeChatShell } from "../../runtime/chat-session.js";
import type { ApprovalMode } from "../../vocabulary/approval-modes.js";
import { forTerminal } from "../../vocabulary/terminal-text.js";
import type { GlobalOptions } from "../main.js";

export interface AcpOptions extends GlobalOptions {
  approval?: ApprovalMode;
  network?: boolean;
  memory?: boolean;
  dangerouslyRunUnconfined?: boolean;
}

/** stdout for the protocol alone: its own writer, and every other write to process.stdout sent to stderr. */
function protocolOutput(): WritableStream<Uint8Array> {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return new WritableStream<Uint8Array>({
    write: (chunk) => new Promise<void>((resolve, reject) => void write(chunk, (err) => (err ? reject(err) : resolve()))),
  });
}

/** `version`: deerflow's (main.ts reads it; this module runs from the runtime bundle, away from package.json). */
export async function acpCommand(opts: AcpOptions, version: string): Promise<number> {
  const log = (line: string) => void process.stderr.write(`deerflow: ${forTerminal(line)}\n`);
  const { app, close } = acpAgent({
    version,
    home: opts.home,
    model: opts.model,
    approval: opts.approval,
    noNetwork: opts.network === false,
    noMemory: opts.memory === false,
    allowUnconfined: opts.dangerouslyRunUnconfined,
    log,
  });
  const connection = app.connect(acp.ndJsonStream(protocolOutput(), Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>));
  // The editor ends the agent by closing stdin or with a signal: running turns stop and are saved, then we exit.
  const stop = () => connection.close();
  for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(s, stop);
  try {
    await connection.closed;
    await close();
    return 0;
  } finally {
    for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.off(s, stop);
    await closeChatShell();
  }
}
