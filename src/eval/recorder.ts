// `deerflow eval --record`: a loopback proxy in front of the model endpoint that keeps every exchange of one task
// attempt (the request body and the response body byte for byte), so a behaviour once seen with a real model can be
// replayed through the test server (test/support/eval-replay.ts) as a regression test.
//
// WHY a proxy, not a hook in the model layer: it records exactly what went over the wire (SSE chunks, provider
// quirks, error bodies) without the core knowing about eval. Headers are never recorded: they carry the API key.
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface RecordedExchange {
  /** The request's path below the base URL, e.g. "/chat/completions". */
  path: string;
  /** The JSON body the client sent (parsed), or the raw text when it was not JSON. */
  request: unknown;
  status: number;
  contentType: string;
  /** The response body as received (an SSE stream stays one string). */
  response: string;
}

export interface RecordingProxy {
  /** Base URL to give the model instead of the real one (same path prefix, e.g. http://127.0.0.1:PORT/v1). */
  url: string;
  exchanges: RecordedExchange[];
  close(): Promise<void>;
}

/** Requests go to `target` (the model's real base URL); the proxy's URL keeps the target's path. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const base = new URL(target.endsWith("/") ? target : `${target}/`);
  const exchanges: RecordedExchange[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void forward(req, res, Buffer.concat(chunks)).catch((err: unknown) => {
        // The model endpoint is unreachable: answer as a gateway would, so the client's own error handling names it.
        if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `eval recorder: ${(err as Error).message}`, type: "server_error" } }));
      });
    });
  });

  async function forward(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) {
    const path = (req.url ?? "/").replace(basePath(), "");
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && !["host", "connection", "content-length"].includes(k)) headers[k] = v;
    const upstream = await fetch(new URL(path.replace(/^\//, ""), base), { method: req.method, headers, body: body.length ? new Uint8Array(body) : undefined });
    const contentType = upstream.headers.get("content-type") ?? "application/octet-stream";
    res.writeHead(upstream.status, { "content-type": contentType });
    const decoder = new TextDecoder();
    let text = "";
    if (upstream.body) {
      for await (const piece of upstream.body as unknown as AsyncIterable<Uint8Array>) {
        text += decoder.decode(piece, { stream: true });
        res.write(piece);
      }
    }
    text += decoder.decode();
    res.end();
    exchanges.push({ path, request: parseJson(body.toString("utf8")), status: upstream.status, contentType, response: text });
  }

  const basePath = () => base.pathname.replace(/\/$/, "");
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath()}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
