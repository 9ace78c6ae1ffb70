// What trusting a project folder is bound to: the .deerflowrc's bytes and, since a stdio MCP server of a trusted file
// runs on the host, the content of every project file its command or arguments name (`node tools/srv.js`). A
// sandboxed command could rewrite such a file and have it run on the host at the next start (the eighteenth pass's
// MC1): now that change makes the folder "changed since you trusted it", asked again. A file that cannot be read
// whole counts as changed every time (fail closed). Not covered: what a program finds by itself (npx's
// node_modules/.bin, python3 -m's modules): the trust question says so (mcp-server-wants.ts).
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, relative, resolve } from "node:path";

const sha256Of = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");

/** Larger server files are not read: they count as changed (a server script is far smaller). */
const MAX_SERVER_FILE = 32 * 1024 * 1024;

const inside = (folder: string, p: string) => {
  const r = relative(folder, p);
  return r !== "" && !r.startsWith("..") && !isAbsolute(r);
};

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The project files a stdio server's command and arguments name (read against its cwd, else the file's folder). */
export function serverFiles(rcPath: string, config: unknown): string[] {
  const folder = dirname(resolve(rcPath));
  const servers = (config as { mcpServers?: unknown } | null)?.mcpServers;
  if (!servers || typeof servers !== "object") return [];
  const out = new Set<string>();
  for (const s of Object.values(servers as Record<string, Record<string, unknown>>)) {
    if (!s || typeof s.command !== "string" || s.sandbox === true) continue;
    const base = typeof s.cwd === "string" && !s.cwd.includes("$") ? resolve(folder, s.cwd) : folder;
    const words = [s.command, ...(Array.isArray(s.args) ? s.args : [])].filter((w): w is string => typeof w === "string");
    // A PATH of the server's own that reaches into the project (`"PATH": "bin:/usr/bin"`) picks its program there.
    const path = (s.env as Record<string, unknown> | undefined)?.PATH;
    if (typeof path === "string" && !s.command.includes("/")) for (const dir of path.split(delimiter)) if (dir && !dir.includes("$")) words.push(join(dir, s.command));
    // `--require=./x.js` names a file too.
    for (const w of words.flatMap((w) => [w, w.slice(w.indexOf("=") + 1)])) {
      if (!w || w.includes("$")) continue;
      const p = resolve(base, w);
      if (inside(folder, p) && isFile(p)) out.add(p);
    }
  }
  return [...out].sort();
}

function fileDigest(path: string): string {
  try {
    if (statSync(path).size > MAX_SERVER_FILE) return randomBytes(16).toString("hex");
    return sha256Of(readFileSync(path));
  } catch {
    return randomBytes(16).toString("hex");
  }
}

/** The value a trust record holds: the file's sha256 alone when no server names a project file (as before). */
export function trustDigest(rcPath: string, bytes: Buffer | string, config: unknown): string {
  const files = serverFiles(rcPath, config);
  if (files.length === 0) return sha256Of(bytes);
  return sha256Of([sha256Of(bytes), ...files.map((f) => `${f}\0${fileDigest(f)}`)].join("\0"));
}
