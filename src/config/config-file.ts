// One .deerflowrc as read: its bytes (trust is bound to them), parsed as JSONC and checked against the schema, with
// one line naming the file and key for anything wrong.
import { ConfigError } from "../errors.js";
import { configText, readBounded } from "./config-file-bytes.js";
import { parseJsonc } from "./jsonc.js";
import { type FileConfig, fileConfigSchema } from "./schema.js";

export interface LoadedFile {
  path: string;
  config: FileConfig;
  /** The file's bytes: trust is bound to them (trust-store.ts). */
  bytes: Buffer;
  /** The user's own file, or a project file whose folder is trusted (its keys all apply). */
  trusted?: boolean;
}

function formatPath(path: PropertyKey[]): string {
  return path.map((p) => String(p)).join(".");
}

/** A file further up, which nobody asked for: one that cannot be read is passed over. */
export function readIfValid(path: string): LoadedFile | undefined {
  try {
    return readConfigFile(path);
  } catch {
    return undefined;
  }
}

export function readConfigFile(path: string): LoadedFile {
  const bytes = readBounded(path);
  let json: unknown;
  try {
    json = parseJsonc(configText(bytes));
  } catch (err) {
    throw new ConfigError(`Invalid config in ${path}: not valid JSON (${(err as Error).message}).`, {
      file: path,
      hint: "Fix the JSON syntax; see .deerflowrc.example.",
    });
  }
  const parsed = fileConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    let keyPath = formatPath(issue.path);
    let what = issue.message;
    if (issue.code === "unrecognized_keys") {
      const key = issue.keys[0]!;
      keyPath = keyPath ? `${keyPath}.${key}` : key;
      what = "unknown key (check the spelling against .deerflowrc.example)";
    }
    throw new ConfigError(`Invalid config in ${path} at "${keyPath || "(root)"}": ${what}.`, { file: path, keyPath });
  }
  return { path, config: parsed.data, bytes };
}
