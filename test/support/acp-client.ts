// A real ACP client (the SDK's `client()` API) for the tests of `deerflow acp`: it records every session update,
// answers permission requests with a test's policy, and talks to the agent over newline-delimited JSON streams —
// in-memory TransformStream pairs for the in-process agent, or a spawned CLI's stdio.
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
  /** The updates of one session of one kind. */
  of<K extends acp.SessionUpdate["sessionUpdate"]>(sessionId: string, kind: K): Extract<acp.SessionUpdate, { sessionUpdate: K }>[];
}

export const choose = (optionId: string): acp.RequestPermissionResponse => ({ outcome: { outcome: "selected", optionId } });

export function testClient(stream: acp.Stream): TestClient {
  const t = {
    updates: [] as acp.SessionNotification[],
    permissions: [] as acp.RequestPermissionRequest[],
    policy: (() => choose("deny")) as PermissionPolicy,
  } as TestClient;
  const app = acp
    .client({ name: "test-editor" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      t.updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      t.permissions.push(params);
      return t.policy(params);
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
