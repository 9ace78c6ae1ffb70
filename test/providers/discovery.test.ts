// First run without configuration: `run` and `doctor` name the local servers they find (loopback, short timeouts).
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";

const e2e = useE2E();
const port = () => Number(new URL(e2e.server.url).port);

/** A port nobody listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const p = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return p;
}

describe("first run without a model", () => {
  it("run names the server it found and how to use it (exit 2, nothing sent)", async () => {
    const sb = e2e.sandbox(false);
    const r = await sb.run(["run", "hi"], { env: { DEERFLOW_DISCOVER_PORTS: `LM Studio=${await closedPort()},Ollama=${port()}` } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`No model configured; found Ollama at http://127.0.0.1:${port()}/v1 (test-model).`);
    expect(r.stderr).toContain(`Use one: OPENAI_BASE_URL=http://127.0.0.1:${port()}/v1 DEERFLOW_MODEL=test-model deerflow run`);
    expect(r.stderr).not.toContain("LM Studio");
    expect(e2e.server.requests).toHaveLength(0);
  });

  it("nothing running: the usual hint", async () => {
    const sb = e2e.sandbox(false);
    const r = await sb.run(["run", "hi"], { env: { DEERFLOW_DISCOVER_PORTS: `Ollama=${await closedPort()}` } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/No model configured\. Set DEERFLOW_MODEL/);
  });

  it("doctor shows what it found", async () => {
    const sb = e2e.sandbox(false);
    const r = await sb.run(["doctor"], { env: { DEERFLOW_DISCOVER_PORTS: `vLLM=${port()}` } });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`✗ model .*No model configured.*Found locally: vLLM at http://127\\.0\\.0\\.1:${port()}/v1 \\(test-model\\)\\.`));
  });
});
