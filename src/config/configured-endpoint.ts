// The endpoint a user set up without naming a model (OPENAI_BASE_URL and/or OPENAI_API_KEY, or "baseUrl"/"apiKey" in
// .deerflowrc): resolved exactly as a model id given with `-m` would be, so the key goes only where loadConfig
// would send it (model-endpoint.ts). Undefined when nothing points anywhere but the built-in default without a key.
import { DEFAULT_BASE_URL, type ResolvedConfig, loadConfig } from "./load.js";
import { type DiscoveredServer, listEndpointModels } from "../model/discover.js";
import { OWN_ENDPOINT_NAME } from "../vocabulary/own-endpoint.js";

export interface ConfiguredEndpoint {
  baseUrl: string;
  apiKey?: string;
}

/** A placeholder model id: only the endpoint it would use is read, never the id. */
const PROBE_MODEL = "deerflow-endpoint-probe";

export function configuredEndpoint(config: Pick<ResolvedConfig, "home" | "trustHome">, cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): ConfiguredEndpoint | undefined {
  let probe;
  try {
    probe = loadConfig({ cwd, env, trustHome: config.trustHome, flags: { home: config.home, model: PROBE_MODEL } }).model;
  } catch {
    return undefined;
  }
  if (!probe) return undefined;
  const baseUrl = probe.baseUrl.replace(/\/+$/, "");
  if (!probe.apiKey && baseUrl === DEFAULT_BASE_URL) return undefined;
  return { baseUrl, apiKey: probe.apiKey };
}

/** How long the configured endpoint may take to list its models (a remote provider, not loopback). */
const ENDPOINT_LIST_TIMEOUT_MS = 5_000;

/** The configured endpoint's models (named OWN_ENDPOINT_NAME), or undefined when none is set up or it lists none. */
export async function configuredEndpointModels(config: Pick<ResolvedConfig, "home" | "trustHome">): Promise<DiscoveredServer | undefined> {
  const endpoint = configuredEndpoint(config);
  if (!endpoint) return undefined;
  const listed = await listEndpointModels(OWN_ENDPOINT_NAME, endpoint.baseUrl, endpoint.apiKey, ENDPOINT_LIST_TIMEOUT_MS);
  return listed && listed.models.length > 0 ? listed : undefined;
}
