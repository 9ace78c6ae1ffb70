// Compaction with no contextWindow configured, through the CLI against the loopback model server: the window a
// server states (vLLM's max_model_len, recorded) is learned and compacts by; a server that states nothing gets the
// documented 32k default; a provider that still refuses a call as too long (vLLM's recorded HTTP 400) gets it
// compacted and sent once more, and a second refusal fails the run with the provider's words; past
// compaction.maxMessages a thread is compacted whatever its tokens. Each of those is proven through the built CLI
// (spawned: the issue's "done when"); what follows a run (the next run, `threads`) runs in-process. Each test has its
// own server: the learned window is remembered per process and endpoint, and runCli runs in this process.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { UNKNOWN_MODEL_WINDOW } from "../../src/model/context-window.js";
import { type Sandbox, makeSandbox } from "../support/cli.js";
import { runCli } from "../support/cli-in-process.js";
import { type RecordedRequest, type TestModelServer, startTestModelServer } from "../support/openai-server.js";
import { trustProject } from "../support/trust.js";
import { VLLM_MODELS, VLLM_OVERFLOW_BODY } from "../providers/window-fixtures.js";
import { isSummaryRequest } from "../support/requests.js";

const size = (r: RecordedRequest) => JSON.stringify(r.body.messages).length;
const tools = (r: RecordedRequest) => (r.body.messages as any[]).filter((m) => m.role === "tool").length;

const open: { server: TestModelServer; sb: Sandbox }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    o.sb.cleanup();
    await o.server.close();
  }
});

async function setUp(fileChars: number, rc?: object) {
  const server = await startTestModelServer();
  const sb = makeSandbox(server.url);
  open.push({ server, sb });
  // Distinct files: reading one file over and over is a loop the guards stop.
  for (let i = 0; i < 16; i++) {
    const lines = [`FILE ${i} start`];
    while (lines.join("\n").length < fileChars) lines.push(`line ${lines.length} of ${i} `.padEnd(78, "."));
    writeFileSync(join(sb.cwd, `f${i}.txt`), `${lines.join("\n")}\n`);
  }
  if (rc) {
    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify(rc));
    trustProject(sb);
  }
  return { server, sb };
}

/** The model reads f.txt `reads` times (counted here: a compaction removes reads), then answers "done". */
function reader(reads: number) {
  let issued = 0;
  return (req: RecordedRequest) => {
    if (isSummaryRequest(req)) return { content: "Summary: the user asked to read f.txt again and again; it was read." };
    return issued >= reads ? { content: "done" } : { toolCalls: [{ name: "read_file", args: { path: `f${issued++}.txt` } }] };
  };
}

/** The context.compacted events of a stream-json output. */
const compactions = (stdout: string) =>
  stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === "context.compacted");

describe("context that fits without a configured window", () => {
  it("learns the window vLLM states and compacts by it; the request after the summary is smaller (spawned CLI)", async () => {
    const { server, sb } = await setUp(3000);
    server.modelList = { ...VLLM_MODELS, data: [{ ...VLLM_MODELS.data[0]!, id: "test-model", root: "test-model", max_model_len: 4096 }] };
    server.setScript(reader(6));
    const r = await sb.run(["run", "read f.txt six times"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("done\n");
    expect(r.stderr).toMatch(/Context compacted: \d+ older messages? summarized and archived/);
    const at = server.requests.findIndex(isSummaryRequest);
    expect(at).toBeGreaterThan(0);
    // Compaction before the call: the request that follows the summary is smaller than the one before it, though
    // one more file was read in between.
    expect(size(server.requests[at + 1]!)).toBeLessThan(size(server.requests[at - 1]!));
    expect(server.modelListAuth).toEqual(["Bearer sk-test-key-123456"]);
  });

  it("a message larger than the window the server states is refused before any model call, in one line", async () => {
    const { server, sb } = await setUp(100);
    server.modelList = { ...VLLM_MODELS, data: [{ ...VLLM_MODELS.data[0]!, id: "test-model", root: "test-model", max_model_len: 4096 }] };
    const r = await runCli(sb, ["run", `summarize this: ${"lorem ipsum dolor sit amet ".repeat(1200)}`]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^deerflow: The prompt is too long for the model's context window: about [\d,]+ tokens, and the window holds 4,096 in all\./);
    expect(server.requests).toHaveLength(0);
  });

  it("a server that states nothing: the 32k default; compaction starts past 75% of it, less the reserve (spawned CLI)", async () => {
    const { server, sb } = await setUp(8000);
    server.setScript(reader(14));
    const r = await sb.run(["run", "--output-format", "stream-json", "read f.txt fourteen times"]);
    expect(r.exitCode).toBe(0);
    const compacted = compactions(r.stdout);
    expect(compacted.length).toBeGreaterThan(0);
    // 0.75 × 32 768 − 4 096 (the reserve for the answer and the prompt) = 20 480; one read adds ~2 000 tokens.
    const limit = UNKNOWN_MODEL_WINDOW * 0.75 - 4096;
    expect(compacted[0].tokens_before).toBeGreaterThan(limit);
    expect(compacted[0].tokens_before).toBeLessThan(limit + 3000);
    // The probe asked the usual native routes, found nothing there, and the run went on.
    expect(server.probes.map((p) => p.route)).toEqual(expect.arrayContaining(["GET /api/ps", "POST /api/show", "GET /props", "GET /api/v0/models"]));
  });

  it("an overflow refusal (vLLM, HTTP 400) is compacted and sent once more; the thread keeps the compaction (spawned CLI)", async () => {
    const { server, sb } = await setUp(3000);
    let refused = 0;
    server.setScript((req) => {
      if (isSummaryRequest(req)) return { content: "Summary: f.txt was read twice." };
      if (refused > 0) return { content: "done" };
      if (tools(req) < 2) return { toolCalls: [{ name: "read_file", args: { path: `f${tools(req)}.txt` } }] };
      if (refused++ === 0) return { raw: [JSON.stringify(VLLM_OVERFLOW_BODY)], status: 400, headers: { "content-type": "application/json" } };
      return { content: "done" };
    });
    const r = await sb.run(["run", "read f.txt twice"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("done\n");
    expect(r.stderr).toMatch(/Context compacted: 2 older messages summarized and archived/);
    const kinds = server.requests.map((q) => (isSummaryRequest(q) ? "summary" : "call"));
    expect(kinds).toEqual(["call", "call", "call", "summary", "call"]);
    const [refusedReq, retried] = [server.requests[2]!, server.requests[4]!];
    expect(size(retried)).toBeLessThan(size(refusedReq));
    expect(JSON.stringify(retried.body.messages)).toContain("Summary: f.txt was read twice.");
    expect(tools(retried)).toBe(1);
    // The next run continues from the compacted thread: the summary, not the archived read, goes out.
    const threadId = JSON.parse((await runCli(sb, ["threads", "--json"])).stdout)[0].id;
    const next = await runCli(sb, ["run", "--thread", threadId, "again"]);
    expect(next.exitCode).toBe(0);
    const last = server.requests.at(-1)!;
    expect(JSON.stringify(last.body.messages)).toContain("Summary: f.txt was read twice.");
    expect(tools(last)).toBe(1);
    expect(server.requests.filter(isSummaryRequest)).toHaveLength(1); // kept from the first run, not compacted again
  });

  it("a second overflow refusal fails the run with the provider's words and what to do (one compaction, exit 1)", async () => {
    const { server, sb } = await setUp(3000);
    server.setScript((req) => {
      if (isSummaryRequest(req)) return { content: "Summary: f.txt was read twice." };
      if (tools(req) < 2 && !JSON.stringify(req.body.messages).includes("Summary:")) return { toolCalls: [{ name: "read_file", args: { path: `f${tools(req)}.txt` } }] };
      return { raw: [JSON.stringify(VLLM_OVERFLOW_BODY)], status: 400, headers: { "content-type": "application/json" } };
    });
    const r = await runCli(sb, ["run", "read f.txt twice"]);
    expect(r.exitCode).toBe(1);
    expect(server.requests.filter(isSummaryRequest)).toHaveLength(1);
    expect(server.requests.filter((q) => !isSummaryRequest(q))).toHaveLength(4);
    expect(r.stderr).toMatch(
      /Model request failed: the request was refused \(HTTP 400 from http:\/\/127\.0\.0\.1:\d+\/v1 for model "test-model"\): This model's maximum context length is 4096 tokens/,
    );
    expect(r.stderr).toContain("no longer fits the model's context window");
    expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
  });

  it("past compaction.maxMessages the thread is compacted, however few its tokens (spawned CLI)", async () => {
    const { server, sb } = await setUp(40, { compaction: { maxMessages: 10 } });
    server.setScript(reader(8));
    const r = await sb.run(["run", "--output-format", "stream-json", "read f.txt eight times"]);
    expect(r.exitCode).toBe(0);
    const compacted = compactions(r.stdout);
    expect(compacted.length).toBeGreaterThan(0);
    expect(compacted[0].tokens_before).toBeLessThan(2000);
    const at = server.requests.findIndex(isSummaryRequest);
    expect((server.requests[at + 1]!.body.messages as unknown[]).length).toBeLessThanOrEqual(10);
  });
});
