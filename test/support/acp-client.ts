// A real ACP client (the SDK's `client()` API) for the tests of `deerflow acp`: it records every session update,
// answers permission requests with a test's policy, serves fs/read_text_file and fs/write_text_file (from its open
// "buffers", else the disk; writes go to the disk) when a test offers them in initialize, and talks to the agent
// over newline-delimited JSON streams — in-memory TransformStream pairs for the in-process agent, or a spawned
// CLI's stdio.
import { readFileSync, writeFileSync } from "node:fs";
import * as acp from "@agentclientprotocol/sdk";

export type PermissionPolicy = (req: acp.RequestPermissionRequest) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>;

export interface TestClient {
  connection: acp.ClientConnection;
  agent: acp.ClientContext;
  /** Every session/update received, in order. */
  updates: acp.SessionNotification[];
  /** Every session/request_permission received, in order. */
  permissions: acp.RequestPermissionRequest[];
  /** How the next permission requests are answered (default: reject). */
  policy: PermissionPolicy;
  /** The editor's open buffers by absolute path (unsaved text the disk does not have). */
  buffers: Map<string, string>;
  /** Every fs/read_text_file and fs/write_text_file received, in order. */
  fileRequests: { method: "read" | "write"; path: string; content?: string }[];
  /** Set to make the editor's file requests fail with this message. */
  fileError: string | undefined;
  /** The updates of one session of one kind. */
  of<K extends acp.SessionUpdate["sessionUpdate"]>(sessionId: string, kind: K): Extract<acp.SessionUpdate, { sessionUpdate: K }>[];
}

/** The text of text-content updates (message and thought chunks), joined. */
export const textOf = (updates: { content: { type: string; text?: string } }[]): string => updates.map((u) => u.content.text ?? "").join("");

export const choose = (optionId: string): acp.RequestPermissionResponse => ({ outcome: { outcome: "selected", optionId } });

export function testClient(stream: acp.Stream): TestClient {
  const t = {
    updates: [] as acp.SessionNotification[],
    permissions: [] as acp.RequestPermissionRequest[],
    policy: (() => choose("deny")) as PermissionPolicy,
    buffers: new Map<string, string>(),
    fileRequests: [] as TestClient["fileRequests"],
    fileError: undefined,
  } as TestClient;
  const failing = () => {
    if (t.fileError) throw acp.RequestError.internalError(undefined, t.fileError);
  };
  const app = acp
    .client({ name: "test-editor" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      t.updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      t.permissions.push(params);
      return t.policy(params);
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      t.fileRequests.push({ method: "read", path: params.path });
      failing();
      return { content: t.buffers.get(params.path) ?? readFileSync(params.path, "utf8") };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      t.fileRequests.push({ method: "write", path: params.path, content: params.content });
      failing();
      // As an editor does: the buffer takes the text and is saved.
      t.buffers.delete(params.path);
      writeFileSync(params.path, params.content);
      return {};
    });
  t.connection = app.connect(stream);
  t.agent = t.connection.agent;
  t.of = (sessionId, kind) => t.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind).map((n) => n.update) as never;
  return t;
}

/** Two in-memory byte pipes: what the agent writes the client reads, and back. */
export function memoryPipes(): { agent: acp.Stream; client: acp.Stream } {
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  return { agent: acp.ndJsonStream(toClient.writable, toAgent.readable), client: acp.ndJsonStream(toAgent.writable, toClient.readable) };
}
