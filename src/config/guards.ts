// The run guards' limits (.deerflowrc `guards`): defaults, and each warning below its stop.
import { ConfigError } from "../errors.js";
import type { FileConfig } from "./schema.js";

export interface ResolvedGuards {
  loopWarn: number;
  loopStop: number;
  toolCallWarn: number;
  toolCallStop: number;
  tokenBudget: number;
}

export function resolveGuards(g: NonNullable<FileConfig["guards"]>, file: string | undefined): ResolvedGuards {
  const out = {
    loopWarn: g.loopWarn ?? 3,
    loopStop: g.loopStop ?? 5,
    toolCallWarn: g.toolCallWarn ?? 30,
    toolCallStop: g.toolCallStop ?? 50,
    tokenBudget: g.tokenBudget ?? 200_000,
  };
  const order = (warn: keyof typeof out, stop: keyof typeof out) => {
    if (out[warn] >= out[stop]) {
      throw new ConfigError(`Invalid config${file ? ` in ${file}` : ""} at "guards.${warn}": must be below guards.${stop} (${out[warn]} ≥ ${out[stop]}).`, {
        file,
        keyPath: `guards.${warn}`,
      });
    }
  };
  order("loopWarn", "loopStop");
  order("toolCallWarn", "toolCallStop");
  return out;
}
