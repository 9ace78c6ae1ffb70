// Cold start of `deerflow chat` with 3 configured MCP servers (two server-everything over stdio, server-filesystem),
// against the same chat with none, in the same run: the servers start in the background after the first frame, so
// neither the first frame nor "Ask anything" may wait for them. Also: how long the three take to start and list
// their tools (`deerflow mcp list` with them, against it with none).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { execFileSync } from "node:child_process";
import { benchEnv, median, timeInPty } from "./first-frame.mjs";
import { trustFolder } from "../dist/config/trust-store.js";

const BIN = fileURLToPath(new URL("../bin/deerflow", import.meta.url));
const EVERYTHING = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const FILESYSTEM = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", import.meta.url));
const RUNS = Math.max(5, Number(process.env.BENCH_MCP_RUNS ?? 7));
const FIRST_FRAME = /Starting…|Ask anything/;
const READY = /Ask anything/;

function timeCommand(args, where) {
  const t0 = performance.now();
  execFileSync(process.execPath, [BIN, ...args], { cwd: where.cwd, env: where.env, stdio: "ignore" });
  return performance.now() - t0;
}

export async function benchMcpStart() {
  const root = mkdtempSync(join(tmpdir(), "deerflow-bench-mcp-"));
  const rootNone = mkdtempSync(join(tmpdir(), "deerflow-bench-mcp0-"));
  try {
    const withMcp = benchEnv(root);
    const none = benchEnv(rootNone);
    writeFileSync(
      join(withMcp.cwd, ".deerflowrc"),
      JSON.stringify({
        mcpServers: {
          one: { command: process.execPath, args: [EVERYTHING, "stdio"] },
          two: { command: process.execPath, args: [EVERYTHING, "stdio"] },
          files: { command: process.execPath, args: [FILESYSTEM, withMcp.cwd] },
        },
      }),
    );
    // Trusted as the user would (`deerflow trust`): a project's MCP servers start only in a trusted folder.
    trustFolder(withMcp.env.DEERFLOW_HOME, join(withMcp.cwd, ".deerflowrc"));
    const frame = { none: [], mcp: [] };
    const ready = { none: [], mcp: [] };
    const list = { none: [], mcp: [] };
    await timeInPty([BIN, "chat"], withMcp, { frame: FIRST_FRAME, ready: READY });
    for (let i = 0; i < RUNS; i++) {
      for (const [k, where] of [
        ["none", none],
        ["mcp", withMcp],
      ]) {
        const r = await timeInPty([BIN, "chat"], where, { frame: FIRST_FRAME, ready: READY });
        frame[k].push(r.frame);
        ready[k].push(r.ready);
        list[k].push(timeCommand(["mcp", "list"], where));
      }
    }
    const m = (xs) => median(xs);
    console.log(`\n## Cold start with 3 MCP servers configured (median of ${RUNS} runs; baseline: no MCP servers, same run)`);
    console.log(`| measure | no MCP servers | 3 MCP servers | ratio |`);
    console.log(`|---|---|---|---|`);
    for (const [label, xs] of [
      ["deerflow chat: first frame", frame],
      ['deerflow chat: ready ("Ask anything")', ready],
      ["deerflow mcp list (start all, list, stop)", list],
    ]) {
      console.log(`| ${label} | ${m(xs.none).toFixed(1)} ms | ${m(xs.mcp).toFixed(1)} ms | ${(m(xs.mcp) / m(xs.none)).toFixed(2)}x |`);
    }
    return { frame: { none: m(frame.none), mcp: m(frame.mcp) }, ready: { none: m(ready.none), mcp: m(ready.mcp) } };
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(rootNone, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchMcpStart();
