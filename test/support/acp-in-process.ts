// `deerflow acp`'s agent in-process for a test file: the loopback model and a data home per test (useInProcessModel),
// clients connected over in-memory pipes, every connection (and the editors' MCP servers) closed after each test.
import { realpathSync } from "node:fs";
import { beforeEach } from "vitest";
import { acpAgent } from "../../src/acp/agent.js";
import { closeMcpServers } from "../../src/mcp/hub.js";
import { type TestClient, memoryPipes, testClient } from "./acp-client.js";
import { useInProcessModel } from "./in-process.js";
import type { TestModelServer } from "./openai-server.js";

export interface AcpTestEnv {
  server: TestModelServer;
  home: string;
  /** The test's working folder, as its real path. */
  cwd: string;
  /** What the agent wrote to its log (stderr) in this test. */
  logs: string[];
  /** A new client connected to a new agent (of the configured `model`, test-model by default). */
  connect: (model?: string) => TestClient;
}

export function useAcpAgent(prefix: string): () => AcpTestEnv {
  let open: { close: () => Promise<void>; client: TestClient }[] = [];
  const env = useInProcessModel(prefix, async () => {
    for (const o of open) {
      o.client.connection.close();
      await o.close();
    }
    open = [];
    await closeMcpServers();
  });
  let current: AcpTestEnv;
  beforeEach(() => {
    const { server, home, cwd } = env();
    const logs: string[] = [];
    const connect = (model = "test-model") => {
      const pipes = memoryPipes();
      const { app, close } = acpAgent({ version: "test", home, model, log: (l) => logs.push(l) });
      app.connect(pipes.agent);
      const client = testClient(pipes.client);
      open.push({ close, client });
      return client;
    };
    current = { server, home, cwd: realpathSync(cwd), logs, connect };
  });
  return () => current;
}
