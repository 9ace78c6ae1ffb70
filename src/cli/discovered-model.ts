// "No model configured" names what could be used, so a first run says how to start instead of only failing: the
// models of the endpoint the user set up (OPENAI_BASE_URL / OPENAI_API_KEY without DEERFLOW_MODEL), else what is
// running locally.
import { ConfigError } from "../errors.js";
import { type ResolvedConfig, type ResolvedModel, requireModel } from "../config/load.js";
import { configuredEndpointModels } from "../config/configured-endpoint.js";
import { OWN_ENDPOINT_NAME } from "../vocabulary/own-endpoint.js";
import { describeServers, discoverLocalServers, suggestion } from "../model/discover.js";

export async function requireModelOrDiscover(config: ResolvedConfig): Promise<ResolvedModel> {
  // An untrusted project's entry left out as the default is said as such: the user may mean to pick it.
  if (config.model || config.untrustedModels) return requireModel(config);
  const own = await configuredEndpointModels(config);
  if (own) {
    const shown = describeServers([own]).replace(`${OWN_ENDPOINT_NAME} at `, "");
    throw new ConfigError(`No model configured; ${shown} serves: pick one with -m <id> or DEERFLOW_MODEL=${own.models[0]} (or "defaultModel" in ~/.deerflowrc).`);
  }
  const servers = await discoverLocalServers();
  if (servers.length === 0) return requireModel(config); // the usual error and hint
  const use = suggestion(servers);
  throw new ConfigError(`No model configured; found ${describeServers(servers)}.`, {
    hint: use
      ? `Use one: ${use} deerflow run "…", or put it in ~/.deerflowrc as "models" and "defaultModel" (see .deerflowrc.example).`
      : "Load a model in that server, then set OPENAI_BASE_URL and DEERFLOW_MODEL (see .deerflowrc.example).",
  });
}
