// The sandbox settings of a resolved configuration (load.ts fills them from .deerflowrc and flags).

export interface ResolvedSandbox {
  bashTimeoutSeconds: number;
  /** false: no network (sandbox.network "off", --no-network). */
  network: boolean;
  /** sandbox.network "host": the host's whole network instead of the proxied public internet. */
  hostNetwork: boolean;
  /** sandbox.allowHosts: private hosts the proxied network may reach (allow-hosts.ts). */
  allowHosts: string[];
  readWrite: string[];
  readOnly: string[];
  passEnv: string[];
  require: boolean;
  /** Host folders commands never see (not from .deerflowrc: `deerflow eval` hides its task folders and scratch). */
  hidden?: string[];
}
