// The first-run picker's choice, written to ~/.deerflowrc. The user's file is theirs: every other key stays, the
// chosen model is added to "models" (its own baseUrl, so a top-level baseUrl other models rely on is untouched)
// and becomes "defaultModel". Only those two keys are edited (config/jsonc.ts): the user's comments and layout stay.
// Written to a temporary file and renamed, so a crash never leaves half a file.
import { existsSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../errors.js";
import { editJsonc, parseJsonc } from "./jsonc.js";
import { RC_NAME } from "./load.js";

export interface ModelChoice {
  /** The provider's model id ("qwen2.5-coder:7b"). */
  model: string;
  baseUrl: string;
}

export interface SavedChoice {
  path: string;
  /** The key under "models" it was saved as. */
  name: string;
}

/** A key for `models` that does not overwrite a different entry already there. */
function entryName(models: Record<string, unknown>, choice: ModelChoice): string {
  const same = (v: unknown) => {
    const m = v as { model?: unknown; baseUrl?: unknown } | undefined;
    return m?.model === choice.model && m?.baseUrl === choice.baseUrl;
  };
  const base = choice.model;
  if (!(base in models) || same(models[base])) return base;
  for (let i = 2; ; i++) if (!(`${base}-${i}` in models) || same(models[`${base}-${i}`])) return `${base}-${i}`;
}

export function saveModelChoice(choice: ModelChoice, userHome: string = process.env.HOME ?? homedir()): SavedChoice {
  // A dotfile manager's symlink stays a symlink: its target is what gets rewritten.
  const path = existsSync(join(userHome, RC_NAME)) ? realpathSync(join(userHome, RC_NAME)) : join(userHome, RC_NAME);
  let config: Record<string, unknown> = {};
  let text: string | undefined;
  if (existsSync(path)) {
    text = readFileSync(path, "utf8");
    let parsed: unknown;
    try {
      parsed = parseJsonc(text);
    } catch {
      throw new ConfigError(`Could not add the model to ${path}: it is not valid JSON.`, { file: path, hint: "Fix it (see .deerflowrc.example) and start again." });
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new ConfigError(`Could not add the model to ${path}: it is not a JSON object.`, { file: path, hint: "Fix it (see .deerflowrc.example) and start again." });
    }
    config = parsed as Record<string, unknown>;
  }
  const models = typeof config.models === "object" && config.models !== null ? { ...(config.models as Record<string, unknown>) } : {};
  const name = entryName(models, choice);
  const entry = { model: choice.model, baseUrl: choice.baseUrl };
  // A "models" that is not an object is replaced whole (as before); otherwise only the new entry is added.
  const modelsEdit: [string[], unknown] =
    typeof config.models === "object" && config.models !== null && !Array.isArray(config.models) ? [["models", name], entry] : [["models"], { ...models, [name]: entry }];
  const next = editJsonc(text ?? "", [modelsEdit, [["defaultModel"], name]]);
  // The file may hold API keys: keep its permissions (a new one is private).
  const mode = text !== undefined ? statSync(path).mode & 0o777 : 0o600;
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, next, { mode });
  renameSync(tmp, path);
  return { path, name };
}
