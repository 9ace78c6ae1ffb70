// "No model configured" names what is running locally, so a first run says how to start instead of only failing.
import { ConfigError } from "../errors.js";
import { type ResolvedConfig, type ResolvedModel, requireModel } from "../config/load.js";
import { describeServers, discoverLocalServers, suggestion } from "../model/discover.js";

export async function requireModelOrDiscover(config: ResolvedConfig): Promise<ResolvedModel> {
  if (config.model) return requireModel(config);
  const servers = await discoverLocalServers();
  if (servers.length === 0) return requireModel(config); // the usual error and hint
  const use = suggestion(servers);
  throw new ConfigError(`No model configured; found ${describeServers(servers)}.`, {
    hint: use
      ? `Use one: ${use} deerflow run "…", or put it in ~/.deerflowrc as "models" and "defaultModel" (see .deerflowrc.example).`
      : "Load a model in that server, then set OPENAI_BASE_URL and DEERFLOW_MODEL (see .deerflowrc.example).",
  });
}
