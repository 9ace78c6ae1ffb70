// First run without configuration: which local OpenAI-compatible servers are up, and what models they serve.
// Loopback only, all probed in parallel with a short timeout, so a machine with nothing running answers in well
// under a second. DEERFLOW_DISCOVER_PORTS ("Ollama=11434,vLLM=8000", or "none") replaces the usual ports (tests).
import { modelListEntries, windowOfListedModel } from "./context-window-parsers.js";
import { fetchFollowingSameOrigin } from "./same-origin-fetch.js";

export interface DiscoveredServer {
  name: string;
  baseUrl: string;
  models: string[];
  /** Context windows the list states (vLLM, OpenRouter, Together AI), by model id. */
  windows?: Record<string, number>;
}

const USUAL: [string, number][] = [
  ["Ollama", 11434],
  ["LM Studio", 1234],
  ["llama.cpp server", 8080],
  ["vLLM", 8000],
];

function portsFrom(env: NodeJS.ProcessEnv): [string, number][] {
  const spec = env.DEERFLOW_DISCOVER_PORTS;
  if (spec === undefined) return USUAL;
  if (spec.trim() === "" || spec.trim() === "none") return [];
  return spec.split(",").flatMap((pair) => {
    const [name, port] = pair.split("=").map((s) => s.trim());
    const n = Number(port);
    return name && Number.isInteger(n) && n > 0 && n < 65536 ? [[name, n] as [string, number]] : [];
  });
}

async function probe(name: string, port: number, timeoutMs: number): Promise<DiscoveredServer | undefined> {
  return listEndpointModels(name, `http://127.0.0.1:${port}/v1`, undefined, timeoutMs);
}

/**
 * The models an OpenAI-compatible endpoint lists at `GET {baseUrl}/models` (with `apiKey` as its bearer token, for
 * the endpoint that key belongs to), or undefined when it does not answer such a list in time.
 */
export async function listEndpointModels(name: string, baseUrl: string, apiKey: string | undefined, timeoutMs: number): Promise<DiscoveredServer | undefined> {
  try {
    const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
    // Redirects within the endpoint's origin only, as for the model request: the key never goes to another host.
    const res = await fetchFollowingSameOrigin(fetch, `${baseUrl.replace(/\/+$/, "")}/models`, { headers, signal: AbortSignal.timeout(timeoutMs) }, baseUrl);
    if (!res.ok) return undefined;
    // OpenAI's `{data: [...]}`, or Together AI's bare array; anything else: something else listens there.
    const entries = modelListEntries(await res.json());
    if (!entries) return undefined;
    const listed = entries.filter((m): m is typeof m & { id: string } => typeof m.id === "string" && m.id.length > 0 && m.id.length < 200);
    const windows: Record<string, number> = {};
    for (const m of listed) {
      const w = windowOfListedModel(m);
      if (w !== undefined) windows[m.id] = w;
    }
    return { name, baseUrl, models: listed.map((m) => m.id), ...(Object.keys(windows).length > 0 && { windows }) };
  } catch {
    return undefined;
  }
}

export async function discoverLocalServers(env: NodeJS.ProcessEnv = process.env, timeoutMs = 700): Promise<DiscoveredServer[]> {
  const found = await Promise.all(portsFrom(env).map(([name, port]) => probe(name, port, timeoutMs)));
  return found.filter((s): s is DiscoveredServer => s !== undefined);
}

/** "Ollama at http://127.0.0.1:11434/v1 (qwen2.5-coder:7b, llama3.2)", at most a few models named. */
export function describeServers(servers: DiscoveredServer[]): string {
  return servers
    .map((s) => {
      const shown = s.models
        .slice(0, 4)
        .map((m) => m.replace(/[\x00-\x1f\x7f]/g, ""))
        .join(", ");
      const more = s.models.length > 4 ? `, +${s.models.length - 4} more` : "";
      return `${s.name} at ${s.baseUrl} (${s.models.length ? `${shown}${more}` : "no models loaded"})`;
    })
    .join("; ");
}

/** The environment that would use the first discovered model, for the user to copy. */
export function suggestion(servers: DiscoveredServer[]): string | undefined {
  const s = servers.find((x) => x.models.length > 0);
  return s ? `OPENAI_BASE_URL=${s.baseUrl} DEERFLOW_MODEL=${s.models[0]}` : undefined;
}
