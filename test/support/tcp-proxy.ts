// A loopback TCP proxy in front of the PostgreSQL server, so one test can "restart" the database for itself only:
// `cut()` drops every open connection (what clients see when the server restarts: the backend is gone) and turns
// new ones away as a starting server does, counting the attempts; `restore()` lets them through again. The shared
// cluster other tests use is never touched.
import { type AddressInfo, type Server, type Socket, createServer, connect } from "node:net";

export interface TcpProxy {
  /** `url` (a postgres:// URL on the real server) pointed at the proxy instead. */
  url(target: string): string;
  cut(): void;
  restore(): void;
  /** Connection attempts turned away while cut. */
  readonly refused: number;
  /** Connections made through the proxy so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let down = false;
  let refused = 0;
  let accepted = 0;
  const server: Server = createServer((client) => {
    if (down) {
      refused++;
      client.destroy();
      return;
    }
    accepted++;
    const upstream = connect(targetPort, targetHost);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url(target) {
      const u = new URL(target);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    cut() {
      down = true;
      for (const s of open) s.destroy();
      open.clear();
    },
    restore() {
      down = false;
    },
    get refused() {
      return refused;
    },
    get accepted() {
      return accepted;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
