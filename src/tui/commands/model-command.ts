// `/model`: the picker's rows (the configured names, what the endpoint's `/v1/models` lists, the local servers'
// models) and switching to a pick or a typed name, said in one line.
import type { ChatSession, DiscoveredServer } from "../../runtime/chat-session.js";
import { formatErrorLine } from "../../errors.js";
import type { ModelOption } from "../state/types.js";
import type { SlashCommand } from "./types.js";

/** Every model of every server, one picker row each. */
export function modelOptions(servers: DiscoveredServer[]): ModelOption[] {
  return servers.flatMap((s) => s.models.map((model) => ({ server: s.name, baseUrl: s.baseUrl, model: model.replace(/[\x00-\x1f\x7f]/g, "") })));
}

/** The configured names first (the one in use marked), then every other model found, once each. */
export async function modelChoices(s: ChatSession): Promise<ModelOption[]> {
  const servers = await s.discoverModels().catch(() => []);
  const configured: ModelOption[] = s.modelNames.map((name) => ({ server: "in .deerflowrc", baseUrl: "", model: name, ...(name === s.model.name ? { current: true } : {}) }));
  const seen = new Set(s.modelNames);
  const found = modelOptions(servers).filter((o) => !seen.has(o.model) && (seen.add(o.model), true));
  const inUse = configured.some((o) => o.current);
  return [...configured, ...found.map((o) => (!inUse && o.model === s.model.model && o.baseUrl === s.model.baseUrl ? { ...o, current: true } : o))];
}

/** Switches to `name` (a configured name, a listed id or any id): the status line's fields, or the error's line. */
export function switchModel(s: ChatSession, name: string): { model?: { name: string; contextWindow?: number }; level: "info" | "error"; text: string } {
  try {
    const m = s.setModel(name);
    // A name that is not in .deerflowrc is taken as the provider's model id: say so, a typo shows here.
    const configured = s.modelNames.includes(m.name);
    return {
      model: { name: m.name, contextWindow: m.contextWindow },
      level: "info",
      text: `Model: ${m.name}${configured ? "" : ` (not in .deerflowrc "models": used as a model id at ${m.baseUrl})`}`,
    };
  } catch (err) {
    return { level: "error", text: formatErrorLine(err) };
  }
}

export const modelCommand: SlashCommand = {
  name: "model",
  args: "[name]",
  description: "pick a model (configured, the endpoint's, local servers'), or switch to one by name",
  run: (ctx) => {
    const s = ctx.session;
    // Without a name: the picker, once the endpoint and the local servers answered (a second at most).
    if (!ctx.args) ctx.idleTask("switching models", async () => ctx.store.dispatch({ type: "ui.model.picker", options: await modelChoices(s), switching: true }));
    else ctx.whileIdle("switching models", () => ctx.useModel(ctx.args));
  },
};
