// In-process tests of the runtime (ChatSession, the TUI controller): one loopback test model per file, a fresh temp
// root per test (DEERFLOW_HOME, a project cwd, a private HOME so no real ~/.deerflowrc leaks in), the model env
// set for the test and the process env restored after it.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { type TestModelServer, startTestModelServer } from "./openai-server.js";

const ENV_KEYS = ["OPENAI_BASE_URL", "OPENAI_API_KEY", "HOME", "DEERFLOW_HOME", "DEERFLOW_MODEL", "DEERFLOW_CHECKPOINT_MODE", "DEERFLOW_DISCOVER_PORTS"] as const;

export interface InProcessEnv {
  server: TestModelServer;
  root: string;
  home: string;
  cwd: string;
}

/** Registers the hooks; `before` cleanups (e.g. waiting for a run a failed test left going) run before the root is removed. */
export function useInProcessModel(prefix: string, before: () => Promise<void> = async () => {}): () => InProcessEnv {
  let server: TestModelServer | undefined;
  let current: InProcessEnv | undefined;
  let saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    server = await startTestModelServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    const root = mkdtempSync(join(tmpdir(), prefix));
    current = { server: server!, root, home: join(root, "deerflow-home"), cwd: join(root, "user", "project") };
    mkdirSync(current.cwd, { recursive: true });
    saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
    for (const k of ENV_KEYS) delete process.env[k];
    process.env.OPENAI_BASE_URL = server!.url;
    process.env.OPENAI_API_KEY = "sk-test-key-123456";
    process.env.HOME = join(root, "user");
    // No test depends on what runs on this machine's usual model ports (first-run discovery, /model).
    process.env.DEERFLOW_DISCOVER_PORTS = "none";
  });
  afterEach(async () => {
    await before();
    for (const k of ENV_KEYS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    if (current) rmSync(current.root, { recursive: true, force: true });
    server!.setScript([]);
    server!.requests.length = 0;
    server!.titleRequests.length = 0;
    server!.titleReply = { content: "Test thread title" };
    server!.modelIds = ["test-model"];
    server!.modelListAuth.length = 0;
  });
  return () => {
    if (!current) throw new Error("the in-process environment is set up in beforeEach");
    return current;
  };
}
