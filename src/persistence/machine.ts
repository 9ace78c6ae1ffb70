// Which machine this process runs on, as recorded with run locks and threads (`deerflow threads` shows it).
// DEERFLOW_HOST names it when the host name says nothing stable (containers get a random one per start).
import { hostname } from "node:os";

export function machineName(): string {
  return process.env.DEERFLOW_HOST?.trim() || hostname();
}
