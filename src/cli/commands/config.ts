// `deerflow config [--json]`: the resolved configuration, secrets masked, so users can see which file and
// which environment variable won.
import { loadConfig, maskSecret } from "../../config/load.js";
import type { GlobalOptions } from "../main.js";
import { forTerminal, maskUrlCredentials } from "../../vocabulary/terminal-text.js";

export async function configCommand(opts: GlobalOptions & { json?: boolean }): Promise<number> {
  const config = loadConfig({ flags: { home: opts.home, model: opts.model } });
  const models = Object.fromEntries(
    Object.entries(config.models).map(([name, m]) => [name, { ...m, apiKey: m.apiKey?.startsWith("$") ? m.apiKey : maskSecret(m.apiKey) }]),
  );
  const view = {
    files: config.files,
    home: config.home,
    checkpoint: config.checkpoint,
    defaultModel: config.defaultModel ?? null,
    model: config.model ? { ...config.model, apiKey: maskSecret(config.model.apiKey) ?? null } : null,
    models,
  };
  if (opts.json) {
    process.stdout.write(maskUrlCredentials(`${JSON.stringify(view, null, 2)}\n`));
    return 0;
  }
  const lines = [
    `config files: ${config.files.length ? config.files.join(", ") : "(none: environment and defaults only)"}`,
    `home:         ${config.home}`,
    `checkpoints:  ${config.checkpoint.channelMode} mode (snapshot every ${config.checkpoint.snapshotFrequency} steps in delta mode)`,
    config.model
      ? `model:        ${config.model.name} → ${config.model.model} at ${config.model.baseUrl} (api key: ${view.model?.apiKey ?? "none"}, timeout ${config.model.timeoutMs / 1000} s)`
      : "model:        (none configured: set DEERFLOW_MODEL or defaultModel in .deerflowrc)",
  ];
  const names = Object.keys(models);
  if (names.length) {
    lines.push("models:");
    for (const name of names) {
      const m = config.models[name]!;
      lines.push(`  ${name === config.model?.name ? "*" : " "} ${name}: ${m.model}${m.baseUrl ? ` at ${m.baseUrl}` : ""}`);
    }
  }
  process.stdout.write(forTerminal(`${lines.join("\n")}\n`));
  return 0;
}
