// The environment a hook runs with. A hook runs on the host in the project, and what it starts may be a program the
// agent's sandbox wrote there (`npx prettier` takes the project's `node_modules/.bin/prettier`: the fourteenth pass's
// H2 read deerflow's API key so). So a hook gets what a sandboxed command gets — the environment without
// credentials (by name and by value, the configured API keys included; `sandbox.passEnv` lets a name through) — and a
// PATH without relative entries or folders a command can write (the project, `sandbox.readWrite`, the data directory).
import { hostPath, scrubEnv } from "../sandbox/env-scrub.js";

export interface HookEnvOptions {
  /** The project folder hooks run in. */
  cwd: string;
  /** Secret values deerflow holds (the configured API keys): a variable containing one is dropped. */
  secretValues?: readonly string[];
  /** Names that pass unchecked (`sandbox.passEnv`). */
  passEnv?: readonly string[];
}

export function hookEnv(opts: HookEnvOptions, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out = scrubEnv(env, { passEnv: opts.passEnv, secretValues: opts.secretValues, project: opts.cwd });
  if (env.PATH !== undefined) out.PATH = hostPath(env.PATH, opts.cwd);
  out.DEERFLOW_PROJECT_DIR = opts.cwd;
  return out;
}
