// `sandbox.readWrite` / `readOnly` of a .deerflowrc as host paths.
import { realpathSync } from "node:fs";
import { dirname, isAbsolute } from "node:path";
import { ConfigError } from "../errors.js";
import { expandHome } from "./data-home.js";

/**
 * `sandbox.readWrite` / `readOnly` as host paths. A relative entry names a folder beside the file that set it; one
 * whose real path leaves that folder (a symlink swapped in after the folder was trusted: the seventh adversarial pass
 * bound ~/.config read-write that way) is refused rather than bound.
 */
export function sandboxPaths(list: string[] | undefined, key: string, userHome: string, file: string | undefined, cwd: string): string[] {
  const base = file ? dirname(file) : cwd;
  return (list ?? []).map((p) => {
    const path = expandHome(p, userHome, base);
    if (p.startsWith("~") || isAbsolute(p)) return path;
    const real = realOrSelf(path);
    const realBase = realOrSelf(base);
    if (real !== realBase && !real.startsWith(`${realBase}/`)) {
      throw new ConfigError(`Invalid config in ${file ?? "the configuration"} at "sandbox.${key}": "${p}" leads to ${real} (through a symlink), outside the folder it names.`, {
        file,
        keyPath: `sandbox.${key}`,
        hint: "Write the real path if you mean it, or remove the symlink.",
      });
    }
    return path;
  });
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
