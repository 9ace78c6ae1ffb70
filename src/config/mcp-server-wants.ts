// One MCP server of a project's .deerflowrc in plain words, for the trust question and `deerflow trust`: everything
// the user agrees to when trusting it. Not only the command or URL: its `env`, `headers` and `cwd` are shown whole,
// every `$VAR` it reads from the user's environment is named with where it goes (a header sends it to the server's
// host), and an `env` that changes which program runs (a PATH of its own, NODE_OPTIONS, LD_PRELOAD …) is marked: the
// eighteenth pass's T2 trusted "npx -y @modelcontextprotocol/server-filesystem ." and ran the repository's bin/npx.
import { dirname } from "node:path";
import type { McpServerConfig } from "./schema.js";

/** `$VAR` / `${VAR}`, as mcp/expand-env.ts reads them. */
const REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** Variables that choose which program or code runs, not only what it is told. */
const CODE_ENV =
  /^(PATH|NODE_OPTIONS|NODE_PATH|LD_PRELOAD|LD_LIBRARY_PATH|LD_AUDIT|DYLD_\w+|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PYTHONUSERBASE|PYTHONPYCACHEPREFIX|HOME|XDG_CONFIG_HOME|XDG_DATA_HOME|PERL5LIB|PERL5OPT|RUBYOPT|RUBYLIB|BASH_ENV|ENV|JAVA_TOOL_OPTIONS|npm_config_\w+|NPM_CONFIG_\w+|UV_\w+|PIP_\w+)$/;

function refsOf(values: readonly string[]): string[] {
  return [...new Set(values.flatMap((v) => [...v.matchAll(REF)].map((m) => (m[1] ?? m[2])!)))];
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/**
 * The parts after the server's command or URL, each "; …". `word` shows one value as the user must read it (quoted
 * where it has spaces or controls: the caller's shell quoting).
 */
export function mcpServerDetails(s: McpServerConfig, file: string, word: (v: string) => string): string {
  const parts: string[] = [];
  const env = Object.entries(s.env ?? {});
  const headers = Object.entries(s.headers ?? {});
  if (env.length) parts.push(`env ${env.map(([k, v]) => `${word(k)}=${word(v)}`).join(" ")}`);
  const code = env.map(([k]) => k).filter((k) => CODE_ENV.test(k));
  if (code.length) parts.push(`⚠ its env sets ${code.join(", ")}: that decides which program or code runs, not the command shown`);
  if (headers.length) parts.push(`headers ${headers.map(([k, v]) => `${word(k)}: ${word(v)}`).join(", ")}`);
  if (s.cwd) parts.push(`cwd ${word(s.cwd)}`);
  const remote = s.command === undefined;
  const url = s.httpUrl ?? s.url ?? "";
  const sent = refsOf(remote ? [url, ...headers.map(([, v]) => v)] : []);
  const passed = refsOf(remote ? [] : [s.command!, ...(s.args ?? []), ...env.map(([, v]) => v), s.cwd ?? ""]);
  if (sent.length) parts.push(`⚠ sends your ${sent.join(", ")} (from your environment) to ${hostOf(url)}`);
  if (passed.length) parts.push(`⚠ gives it your ${passed.join(", ")} (from your environment)`);
  // Unconfined, it starts on the host in the project (or its cwd): what a program finds there by itself (npx's
  // node_modules/.bin, python3 -m's modules) the agent can rewrite, even in the sandbox (the eighteenth pass's MC1);
  // a project file the command names is part of the trust (trust-digest.ts).
  if (!remote && !s.sandbox)
    parts.push(
      `⚠ runs on your host in ${s.cwd ? "its cwd" : dirname(file)}: it runs code the agent can rewrite there (only the files its command names and npx's package copy are checked, not what they load); "sandbox": true confines it`,
    );
  return parts.map((p) => `; ${p}`).join("");
}
