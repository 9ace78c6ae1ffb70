// initialize: the protocol version both sides speak (the client's, when it is one this agent knows, else ours) and
// the capabilities deerflow really has. No authentication step: the model is configured in .deerflowrc or the
// environment; when none is, one auth method says how to configure it (ACP has no other place for that sentence).
import type { ResolvedModel } from "../config/load.js";
import { type AuthMethod, type InitializeRequest, type InitializeResponse, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

export const CONFIGURE_MODEL: AuthMethod = {
  id: "configure-model",
  name: "Configure a model",
  description:
    'deerflow needs a model: set OPENAI_API_KEY (and OPENAI_BASE_URL for another endpoint) and DEERFLOW_MODEL in the agent\'s environment, or "defaultModel" in ~/.deerflowrc; `deerflow doctor` checks it.',
};

/** `model`: the configured one (undefined when none is): images are offered when it is marked as seeing them. */
export function initializeResponse(req: InitializeRequest, opts: { version: string; model: Pick<ResolvedModel, "supportsVision"> | undefined }): InitializeResponse {
  return {
    protocolVersion: Math.min(req.protocolVersion, PROTOCOL_VERSION),
    agentCapabilities: {
      loadSession: true,
      // Text, resource links and embedded text resources become the prompt; an image is given to the model as a file
      // it looks at with view_image, which only a model marked "supportsVision" has (prompt-images.ts).
      promptCapabilities: { image: opts.model?.supportsVision === true, audio: false, embeddedContext: true },
      // A session is a thread: listed, resumed without replay, closed (the thread kept).
      sessionCapabilities: { list: {}, resume: {}, close: {} },
      // MCP servers the client passes: stdio always, HTTP and SSE as .deerflowrc servers can be (client-mcp.ts).
      mcpCapabilities: { http: true, sse: true },
    },
    authMethods: opts.model ? [] : [CONFIGURE_MODEL],
    agentInfo: { name: "deerflow", title: "deerflow", version: opts.version },
  };
}
