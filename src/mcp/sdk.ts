// The MCP SDK and LangChain's adapter, imported when the first server starts: most runs configure no MCP server,
// and setting up the SDK's modules (hundreds of zod schemas) was a noticeable part of every `deerflow run`'s start
// (the runtime bundle initialises what is imported statically as it loads; see scripts/bundle-runtime.mjs).
export interface McpSdk {
  Client: typeof import("@modelcontextprotocol/sdk/client/index.js").Client;
  loadMcpTools: typeof import("@langchain/mcp-adapters").loadMcpTools;
  SSEClientTransport: typeof import("@modelcontextprotocol/sdk/client/sse.js").SSEClientTransport;
  StdioClientTransport: typeof import("@modelcontextprotocol/sdk/client/stdio.js").StdioClientTransport;
  StreamableHTTPClientTransport: typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js").StreamableHTTPClientTransport;
}

let sdk: Promise<McpSdk> | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  sdk ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@langchain/mcp-adapters"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  ]).then(([client, adapters, sse, stdio, http]) => ({
    Client: client.Client,
    loadMcpTools: adapters.loadMcpTools,
    SSEClientTransport: sse.SSEClientTransport,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
  }));
  return sdk;
}
