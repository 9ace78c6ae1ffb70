// The config's hooks as runHooks takes them: one home, so every event gets the same environment rules (a hook runs on
// the host, maybe a program the sandbox wrote in the project: none of deerflow's credentials, by name or by value).
import type { ResolvedConfig } from "../config/load.js";
import type { HookReport, HookSetup } from "../hooks/run-hooks.js";
import { shellSettingsFromConfig } from "../sandbox/shell-settings.js";

/** The hooks of `config` (undefined when there are none), each run reported to `onReport`. */
export function hookSetupOf(config: ResolvedConfig, onReport?: (report: HookReport) => void): HookSetup | undefined {
  if (!config.hooks.length) return undefined;
  return {
    hooks: config.hooks,
    cwd: config.cwd ?? process.cwd(),
    secretValues: shellSettingsFromConfig(config).secretValues,
    passEnv: config.sandbox.passEnv,
    onReport,
  };
}
