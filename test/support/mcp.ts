// MCP servers for tests: the registry's reference servers (installed as dev dependencies) and deerflow's fixture
// server (test/fixtures/mcp/fixture-server.mjs, a real SDK server whose behaviour is chosen by arguments).
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";
import { trustProject } from "./trust.js";

export const EVERYTHING = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
export const FILESYSTEM = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", import.meta.url));
export const FIXTURE = fileURLToPath(new URL("../fixtures/mcp/fixture-server.mjs", import.meta.url));

export const fixture = (...args: string[]) => ({ command: process.execPath, args: [FIXTURE, ...args] });
export const everythingStdio = () => ({ command: process.execPath, args: [EVERYTHING, "stdio"] });

/**
 * Writes the project's `.deerflowrc` (in `sb.cwd`) with these MCP servers (plus any other keys), and trusts the
 * folder as `deerflow trust` would: MCP servers in a project file start only in a trusted folder.
 */
export function writeRc(sb: { home: string; cwd: string }, mcpServers: Record<string, unknown>, extra: Record<string, unknown> = {}): void {
  writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ mcpServers, ...extra }, null, 2));
  trustProject(sb);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

/** server-everything over streamable HTTP (or SSE) on a free loopback port; resolves once it listens. */
export async function startEverythingHttp(transport: "streamableHttp" | "sse" = "streamableHttp"): Promise<{ url: string; child: ResultPromise; stop(): Promise<void> }> {
  const port = await freePort();
  const child = execa(process.execPath, [EVERYTHING, transport], { env: { PORT: String(port) }, reject: false, stdin: "ignore", stdout: "ignore", stderr: "pipe", buffer: false });
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    child.stderr?.on("data", (d: Buffer) => {
      seen += d.toString();
      if (/(listening|running) on port/i.test(seen)) resolve();
    });
    void child.then(() => reject(new Error(`server-everything exited: ${seen}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/${transport === "sse" ? "sse" : "mcp"}`,
    child,
    async stop() {
      child.kill("SIGKILL");
      await child;
    },
  };
}
