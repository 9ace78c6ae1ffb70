// A hostile MCP server and a hostile model, through the CLI: escape sequences in tool names, descriptions
// and results; a tool named like a built-in; huge results; error results; a server that crashes mid-call; one that
// spams notifications; an image that is not an image; a model that calls tools it was not given. What reaches the
// terminal is the built CLI's (the first test); the others drive main() in-process (the servers are real processes).
import { readFileSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import { fixture, writeRc } from "../support/mcp.js";
import type { RecordedRequest } from "../support/openai-server.js";

const e2e = useE2E();
const ESC = "\u001b";
const toolResults = (req: RecordedRequest): string[] =>
  req.body.messages.filter((m: { role: string }) => m.role === "tool").map((m: { content: unknown }) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
const lastToolResult = (req: RecordedRequest) => toolResults(req).at(-1) ?? "";
const toolDefs = (req: RecordedRequest): { name: string; description: string }[] => (req.body.tools ?? []).map((t: { function: { name: string; description: string } }) => t.function);

describe("a hostile MCP server", () => {
  it("escape sequences never reach the model's tool list, the results or the terminal; a tool named bash is not the built-in", async () => {
    const sb = e2e.sandbox();
    writeRc(sb, { fx: { ...fixture("--hostile"), trust: true } }, { mcp: { deferAbove: 100, deferTokens: 1_000_000 } });
    const list = await sb.run(["mcp", "list"]);
    expect(list.stdout).not.toContain(ESC);
    expect(list.stdout).toContain("mcp__fx__evil_0_pwned_ (trusted)  Clears your screen and sets the title ; also OSC 52 .");
    e2e.server.push(
      { toolCalls: [{ id: "e1", name: "mcp__fx__evil_0_pwned_", args: {} }] },
      {
        toolCalls: [
          { id: "b1", name: "mcp__fx__bash", args: { command: "echo from-model" } },
          { id: "b2", name: "bash", args: { command: "echo real-bash" } },
        ],
      },
      { content: "done" },
    );
    const r = await sb.run(["run", "go"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(ESC);
    const [first, second, third] = e2e.server.requests;
    const defs = toolDefs(first!);
    expect(defs.filter((d) => d.name === "bash")).toHaveLength(1);
    expect(defs.find((d) => d.name === "bash")!.description).toMatch(/^Run a bash command/);
    for (const d of defs) expect(JSON.stringify(d)).not.toContain("\\u001b");
    expect(lastToolResult(second!)).toBe("result with red and  clipboard");
    const results = toolResults(third!);
    expect(results).toContain("fixture bash got: echo from-model");
    expect(results).toContain("real-bash");
  });

  it("huge and error results, a description of 100k characters, an image that is HTML: bounded and plain", async () => {
    const sb = e2e.sandbox();
    writeRc(sb, { fx: { ...fixture("--hostile"), trust: true } }, { mcp: { deferAbove: 100, deferTokens: 1_000_000 }, models: { "test-model": { model: "test-model", supportsVision: true } } });
    e2e.server.push(
      { toolCalls: [{ id: "h1", name: "mcp__fx__huge", args: { chars: 3_000_000 } }] },
      { toolCalls: [{ id: "f1", name: "mcp__fx__fails", args: {} }] },
      { toolCalls: [{ id: "i1", name: "mcp__fx__badimage", args: {} }] },
      { content: "done" },
    );
    const r = await runCli(sb, ["run", "--output-format", "json", "go"]);
    expect(r.exitCode).toBe(0);
    const [first, second, third, fourth] = e2e.server.requests;
    const longdesc = toolDefs(first!).find((d) => d.name === "mcp__fx__longdesc")!;
    expect(longdesc.description.length).toBeLessThanOrEqual(1024);
    const huge = lastToolResult(second!);
    expect(huge.length).toBeLessThan(20_000);
    expect(huge).toMatch(/saved to \/mnt\/user-data\/outputs\/\.tool-results\//);
    expect(lastToolResult(third!)).toBe('Error: mcp__fx__fails (MCP server "fx") reported an error: quota exceeded for project demo');
    expect(third!.body.messages.at(-1).role).toBe("tool");
    // Not an image: kept as a file, never sent to the model as an image.
    expect(lastToolResult(fourth!)).toMatch(/^\[image content \(text\/html\) saved to \/mnt\/user-data\/outputs\/mcp\/\S+\.bin; not an image type the model can see\]$/);
    expect(JSON.stringify(fourth!.body.messages)).not.toContain("data:text/html");
    const outputs = join(sb.home, "threads", JSON.parse(r.stdout).thread_id, "outputs", "mcp");
    expect(readdirSync(outputs).some((f) => f.endsWith(".bin"))).toBe(true);
  });

  it("a server that crashes mid-call: that call and later ones are error results saying so; notification spam is survived", async () => {
    const sb = e2e.sandbox();
    writeRc(sb, { fx: { ...fixture("--crash", "--hostile"), trust: true }, other: { ...fixture("--tools", "1"), trust: true } }, { mcp: { deferAbove: 100, deferTokens: 1_000_000 } });
    e2e.server.push(
      { toolCalls: [{ id: "s1", name: "mcp__fx__spam", args: { count: 2000 } }] },
      { toolCalls: [{ id: "c1", name: "mcp__fx__crash", args: {} }] },
      {
        toolCalls: [
          { id: "c2", name: "mcp__fx__fails", args: {} },
          { id: "o1", name: "mcp__other__fixture_0", args: { text: "still here" } },
        ],
      },
      { content: "done" },
    );
    const r = await runCli(sb, ["run", "go"]);
    expect(r.exitCode).toBe(0);
    const [, second, third, fourth] = e2e.server.requests;
    expect(lastToolResult(second!)).toBe("sent 2000 notifications");
    expect(lastToolResult(third!)).toMatch(/^Error: MCP server "fx" is not available \(the server stopped \(its connection closed\)\)/);
    const after = toolResults(fourth!);
    expect(after).toContainEqual(expect.stringMatching(/^Error: MCP server "fx" is not available/));
    expect(after).toContain("fixture_0 says: still here");
  });
});

describe("an MCP answer over the SDK's 10 MB message limit", () => {
  it("closes that server's connection; the call and later ones say why, the run goes on", async () => {
    const sb = e2e.sandbox();
    writeRc(sb, { fx: { ...fixture("--hostile"), trust: true } }, { mcp: { deferAbove: 100, deferTokens: 1_000_000 } });
    e2e.server.push({ toolCalls: [{ id: "h1", name: "mcp__fx__huge", args: { chars: 12_000_000 } }] }, { content: "moved on" });
    const r = await runCli(sb, ["run", "go"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("moved on\n");
    expect(lastToolResult(e2e.server.requests[1]!)).toMatch(/^Error: MCP server "fx" is not available \(the server sent a message larger than 10 MB and the connection was closed\)/);
  });
});

describe("a slow MCP server", () => {
  it("a call past the server's timeout is cancelled and answered with an error result naming the setting", async () => {
    const sb = e2e.sandbox();
    writeRc(sb, { slowpoke: { ...fixture("--slow"), trust: true, timeout: 1000 } });
    e2e.server.push({ toolCalls: [{ id: "s1", name: "mcp__slowpoke__slow", args: { ms: 60_000 } }] }, { content: "gave up" });
    const r = await runCli(sb, ["run", "wait"]);
    expect(r.exitCode).toBe(0);
    expect(lastToolResult(e2e.server.requests[1]!)).toBe(
      "Error: mcp__slowpoke__slow did not answer within 1000 ms (mcpServers.slowpoke.timeout); the call was cancelled. Try again with less work, or another way.",
    );
  });
});

describe("a hostile model", () => {
  it("calls an MCP tool that does not exist, a deferred tool by its short name, and a catastrophic regex in tool_search", async () => {
    const sb = e2e.sandbox();
    writeRc(sb, { fx: { ...fixture("--tools", "25", "--prefix", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), trust: true } });
    e2e.server.push(
      { toolCalls: [{ id: "n1", name: "mcp__fx__nope", args: {} }] },
      { toolCalls: [{ id: "q1", name: "tool_search", args: { query: "(a+)+$" } }] },
      { toolCalls: [{ id: "q2", name: "tool_search", args: { query: "select:nope,also_nope" } }] },
      { content: "done" },
    );
    const r = await runCli(sb, ["run", "go"]);
    expect(r.exitCode).toBe(0);
    const [, second, third, fourth] = e2e.server.requests;
    expect(lastToolResult(second!)).toMatch(/mcp__fx__nope/);
    expect(lastToolResult(third!)).toMatch(/^(Loaded|No deferred tool)/);
    expect(lastToolResult(fourth!)).toMatch(/^No deferred tool matches "select:nope,also_nope"\.\nNot found: nope, also_nope\./);
  });
});

describe("a hostile repository and the user's own MCP servers", () => {
  it("a server from ~/.deerflowrc with no cwd starts in the home, not the project (npx and python -m resolve from their cwd: the eleventh pass)", async () => {
    const sb = e2e.sandbox();
    const seen = join(sb.userHome, "server-cwd.txt");
    writeFileSync(join(sb.userHome, ".deerflowrc"), JSON.stringify({ mcpServers: { where: { command: "sh", args: ["-c", `pwd > ${seen}`] } } }));
    e2e.server.push({ content: "done" });
    const r = await runCli(sb, ["run", "hi"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(seen, "utf8").trim()).toBe(realpathSync(sb.userHome));
  });
});
