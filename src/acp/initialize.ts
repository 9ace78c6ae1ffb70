// initialize: the protocol version both sides speak (the client's, when it is one this agent knows, else ours) and
// the capabilities deerflow really has. No authentication step: the model is configured in .deerflowrc or the
// environment; when none is, one auth method says how to configure it (ACP has no other place for that sentence).
import { type AuthMethod, type InitializeRequest, type InitializeResponse, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

export const CONFIGURE_MODEL: AuthMethod = {
  id: "configure-model",
  name: "Configure a model",
  description:
    'deerflow needs a model: set OPENAI_API_KEY (and OPENAI_BASE_URL for another endpoint) and DEERFLOW_MODEL in the agent\'s environment, or "defaultModel" in ~/.deerflowrc; `deerflow doctor` checks it.',
};

export function initializeResponse(req: InitializeRequest, opts: { version: string; modelConfigured: boolean }): InitializeResponse {
  return {
    protocolVersion: Math.min(req.protocolVersion, PROTOCOL_VERSION),
    agentCapabilities: {
      loadSession: true,
      // Text, resource links and embedded text resources become the prompt; deerflow's prompt is text (images go
      // through view_image on a file), so image and audio blocks are not offered.
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
      // MCP servers the client passes: stdio always, HTTP and SSE as .deerflowrc servers can be (client-mcp.ts).
      mcpCapabilities: { http: true, sse: true },
    },
    authMethods: opts.modelConfigured ? [] : [CONFIGURE_MODEL],
    agentInfo: { name: "deerflow", title: "deerflow", version: opts.version },
  };
}
