// Shared set-up of the end-to-end tests: one loopback test model per file, a fresh isolated sandbox per test,
// and everything reset between tests.
import { afterAll, afterEach, beforeAll } from "vitest";
import { makeSandbox, type Sandbox } from "./cli.js";
import { startTestModelServer, type TestModelServer } from "./openai-server.js";

export interface E2E {
  readonly server: TestModelServer;
  /** A fresh sandbox (cleaned up after the test); with the test model configured unless `withModel` is false. */
  sandbox(withModel?: boolean): Sandbox;
}

export function useE2E(): E2E {
  let server: TestModelServer | undefined;
  const open: Sandbox[] = [];
  beforeAll(async () => {
    server = await startTestModelServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.cleanup();
    if (!server) return;
    server.setScript([]);
    server.requests.length = 0;
    server.titleRequests.length = 0;
    server.titleReply = { content: "Test thread title" };
    server.memoryRequests.length = 0;
    server.memoryReply = { content: '{"facts": []}' };
    server.modelIds = ["test-model"];
    server.modelListAuth.length = 0;
    server.modelList = undefined;
    server.routes = {};
    server.probes.length = 0;
  });
  return {
    get server() {
      if (!server) throw new Error("the test model starts in beforeAll");
      return server;
    },
    sandbox(withModel = true) {
      const s = makeSandbox(withModel ? this.server.url : undefined);
      open.push(s);
      return s;
    },
  };
}
