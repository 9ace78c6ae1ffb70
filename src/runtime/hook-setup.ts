// The config's hooks as runHooks takes them: one home, so every event gets the same environment rules (a hook runs on
// the host, maybe a program the sandbox wrote in the project: none of deerflow's credentials, by name or by value).
import type { ResolvedConfig } from "../config/load.js";
import type { HookReport, HookSetup } from "../hooks/run-hooks.js";
import { UsageError } from "../errors.js";
import { replaceableBy, replaceableFolderLine } from "../sandbox/replaceable-folders.js";
import { shellSettingsFromConfig } from "../sandbox/shell-settings.js";

/** The hooks of `config` (undefined when there are none), each run reported to `onReport`. */
export function hookSetupOf(config: ResolvedConfig, onReport?: (report: HookReport) => void): HookSetup | undefined {
  if (!config.hooks.length) return undefined;
  const cwd = config.cwd ?? process.cwd();
  // Hooks run on the host in this folder, by its path: one another user could swap for a link ran their package.json
  // scripts as you (A45a-3).
  const why = replaceableBy(cwd);
  if (why) throw new UsageError(replaceableFolderLine(`The folder your hooks run in, ${cwd},`, why));
  return {
    hooks: config.hooks,
    cwd,
    secretValues: shellSettingsFromConfig(config).secretValues,
    passEnv: config.sandbox.passEnv,
    onReport,
  };
}
