// `deerflow config [--json]`: the resolved configuration, secrets masked, so users can see which file and
// which environment variable won.
import { loadConfig, maskSecret } from "../../config/load.js";
import { ignoredKeyNames, ignoredNotice } from "../../config/project-trust.js";
import type { GlobalOptions } from "../main.js";
import { maskSecretShapes } from "../../vocabulary/secret-shapes.js";
import { forTerminal, jsonText, maskUrlCredentials } from "../../vocabulary/terminal-text.js";

const ENV_REF = /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/;
/** A command-line flag that takes a credential (`--api-key`, `--token`, `-password`…). */
const SECRET_FLAG = /^--?[\w-]*(?:key|token|secret|password|passwd|auth)[\w-]*$/i;

/**
 * A stdio server's arguments as shown: servers are often given their token on the command line (`--token=…`,
 * `--api-key …`), so a credential flag's value and anything key-shaped are masked like `env` values.
 */
function maskArgs(args?: string[]): string[] | undefined {
  return args?.map((a, i) => {
    if (ENV_REF.test(a)) return a;
    const eq = /^(--?[\w-]+=)(.*)$/.exec(a);
    if (eq && SECRET_FLAG.test(eq[1]!.slice(0, -1)) && !ENV_REF.test(eq[2]!)) return `${eq[1]}${maskSecret(eq[2]) ?? ""}`;
    if (i > 0 && SECRET_FLAG.test(args[i - 1]!) && !a.startsWith("-")) return maskSecret(a) ?? a;
    return maskSecretShapes(a);
  });
}

/** MCP servers as configured, literal secrets in `env`, `headers` and arguments masked (`$VAR` references shown as written). */
function mcpView(servers: ReturnType<typeof loadConfig>["mcp"]["servers"]) {
  const mask = (rec?: Record<string, string>) => (rec ? Object.fromEntries(Object.entries(rec).map(([k, v]) => [k, ENV_REF.test(v) ? v : (maskSecret(v) ?? v)])) : undefined);
  return Object.fromEntries(
    Object.entries(servers).map(([name, { file: _file, ...sv }]) => [
      name,
      { ...sv, args: maskArgs(sv.args), url: sv.url && maskSecretShapes(sv.url), httpUrl: sv.httpUrl && maskSecretShapes(sv.httpUrl), env: mask(sv.env), headers: mask(sv.headers) },
    ]),
  );
}

export async function configCommand(opts: GlobalOptions & { json?: boolean }): Promise<number> {
  const config = loadConfig({ flags: { home: opts.home, model: opts.model } });
  const models = Object.fromEntries(Object.entries(config.models).map(([name, m]) => [name, { ...m, apiKey: m.apiKey?.startsWith("$") ? m.apiKey : maskSecret(m.apiKey) }]));
  const view = {
    files: config.files,
    home: config.home,
    checkpoint: config.checkpoint,
    defaultModel: config.defaultModel ?? null,
    model: config.model ? { ...config.model, apiKey: maskSecret(config.model.apiKey) ?? null } : null,
    models,
    mcpServers: mcpView(config.mcp.servers),
    // Keys of an untrusted project file that are left out (null: none).
    ignored: config.untrusted ? { file: config.untrusted.file, state: config.untrusted.state, keys: ignoredKeyNames(config.untrusted) } : null,
  };
  if (opts.json) {
    process.stdout.write(maskUrlCredentials(`${jsonText(view, 2)}\n`));
    return 0;
  }
  const lines = [
    `config files: ${config.files.length ? config.files.join(", ") : "(none: environment and defaults only)"}`,
    `home:         ${config.home}`,
    config.checkpoint.explicitMode
      ? `checkpoints:  ${config.checkpoint.channelMode} mode for every thread (snapshot every ${config.checkpoint.snapshotFrequency} steps in delta mode)`
      : `checkpoints:  ${config.checkpoint.channelMode} mode for new threads, an existing thread in its own (snapshot every ${config.checkpoint.snapshotFrequency} steps in delta mode)`,
    config.model
      ? `model:        ${config.model.name} → ${config.model.model} at ${config.model.baseUrl} (api key: ${view.model?.apiKey ?? (config.model.keyWithheld ? `none: ${config.model.keyWithheld}` : "none")}, timeout ${config.model.timeoutMs / 1000} s)`
      : "model:        (none configured: set DEERFLOW_MODEL or defaultModel in .deerflowrc)",
  ];
  const names = Object.keys(models);
  if (names.length) {
    lines.push("models:");
    for (const name of names) {
      const m = config.models[name]!;
      lines.push(`  ${name === config.model?.name ? "*" : " "} ${name}: ${m.model ?? name}${m.baseUrl ? ` at ${m.baseUrl}` : ""}`);
    }
  }
  for (const [name, sv] of Object.entries(view.mcpServers)) {
    if (name === Object.keys(view.mcpServers)[0]) lines.push("mcp servers:");
    lines.push(
      `    ${name}: ${sv.command ? `stdio ${[sv.command, ...(sv.args ?? [])].join(" ")}` : `${sv.type === "sse" ? "sse" : "http"} ${sv.url ?? sv.httpUrl}`}${sv.enabled === false ? " (disabled)" : ""}`,
    );
  }
  if (config.untrusted) lines.push(`untrusted:    ${ignoredNotice(config.untrusted)}`);
  process.stdout.write(forTerminal(`${lines.join("\n")}\n`));
  return 0;
}
