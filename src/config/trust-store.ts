// Which project folders the user trusted (`deerflow trust`): `<home>/trusted-folders.json`, where `<home>` is the
// data directory computed WITHOUT the project's file (its own "home" key needs trust, so it cannot choose where its
// trust is recorded). Trust is per folder (the one holding the .deerflowrc) AND per content: the file's sha256 is
// recorded, so a file changed after it was trusted (a `git pull`) is untrusted again until the user looks at it anew.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseJsonc } from "./jsonc.js";
import { configText, readBounded } from "./config-file-bytes.js";
import { homedir } from "node:os";
import { RC_NAME, dataHomeOf, rcFiles } from "./data-home.js";
import { trustDigest } from "./trust-digest.js";

export const TRUST_FILE = "trusted-folders.json";

export interface TrustRecord {
  /** trustDigest (trust-digest.ts) when it was trusted: the .deerflowrc's sha256, with the files its servers name. */
  sha256: string;
  trustedAt: string;
}

export type TrustState = "trusted" | "untrusted" | "changed";

export function sha256Of(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The data home from the flag, DEERFLOW_HOME and the user's own ~/.deerflowrc only: where trust is recorded. */
export function trustHomeOf(s: { flag?: string; env: NodeJS.ProcessEnv; cwd: string; userHome: string }): string {
  const userRc = join(s.userHome, RC_NAME);
  let home: string | undefined;
  try {
    const h = (parseJsonc(configText(readBounded(userRc))) as { home?: unknown })?.home;
    home = typeof h === "string" && h ? h : undefined;
  } catch {
    home = undefined;
  }
  return resolve(dataHomeOf({ ...s, files: existsSync(userRc) ? [{ path: userRc, home }] : [] }));
}

/** The recorded folders; a missing or damaged file trusts nothing (`deerflow trust` writes a fresh one). */
export function readTrustRecords(trustHome: string): Record<string, TrustRecord> {
  try {
    const parsed = JSON.parse(readFileSync(join(trustHome, TRUST_FILE), "utf8")) as { folders?: unknown };
    const folders = parsed?.folders;
    if (!folders || typeof folders !== "object" || Array.isArray(folders)) return {};
    return Object.fromEntries(Object.entries(folders as Record<string, TrustRecord>).filter(([, r]) => typeof r?.sha256 === "string"));
  } catch {
    return {};
  }
}

/** Whether this project file (by its folder and current trustDigest) is trusted, was trusted before it changed, or not. */
export function trustStateOf(trustHome: string, rcPath: string, digest: string): TrustState {
  const record = readTrustRecords(trustHome)[dirname(resolve(rcPath))];
  if (!record) return "untrusted";
  return record.sha256 === digest ? "trusted" : "changed";
}

/** trustDigest of a file's bytes as read (an unparsable file: its bytes alone). */
export function digestOfBytes(rcPath: string, bytes: Buffer): string {
  let config: unknown;
  try {
    config = parseJsonc(configText(bytes));
  } catch {
    config = undefined;
  }
  return trustDigest(rcPath, bytes, config);
}

/** Atomically (temp file + rename), readable by the user only: other local users have no business in this list. */
function writeRecords(trustHome: string, folders: Record<string, TrustRecord>): void {
  mkdirSync(trustHome, { recursive: true, mode: 0o700 });
  const path = join(trustHome, TRUST_FILE);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify({ version: 1, folders }, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Trusts `rcPath`'s folder with the file as it is now (or as it was when shown: `sha256`, so a file changed while
 * the user read the question is not what gets trusted); returns the record.
 */
export function trustFolder(trustHome: string, rcPath: string, sha256?: string): { folder: string; record: TrustRecord } {
  const folder = dirname(resolve(rcPath));
  const record = { sha256: sha256 || digestOfBytes(rcPath, readBounded(rcPath)), trustedAt: new Date().toISOString() };
  writeRecords(trustHome, { ...readTrustRecords(trustHome), [folder]: record });
  return { folder, record };
}

/** Forgets a folder; false when it was not trusted. */
export function revokeFolder(trustHome: string, folder: string): boolean {
  const records = readTrustRecords(trustHome);
  const key = resolve(folder);
  if (!records[key]) return false;
  delete records[key];
  writeRecords(trustHome, records);
  return true;
}

/**
 * The data directory, before (and without) loading the config: reads only the files' "home" keys, a project's only
 * when its folder is trusted (a repository must not choose where deerflow keeps its data). A file that cannot be
 * read gives no "home". (The code cache is not in the home: config/cache-home.ts reads only the environment, so no
 * .deerflowrc chooses which compiled code deerflow loads.)
 */
export function peekDataHome(flag: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const userHome = env.HOME ?? homedir();
  const userRc = join(userHome, RC_NAME);
  const trustHome = trustHomeOf({ flag, env, cwd, userHome });
  const files = rcFiles(cwd, userHome).map((path) => {
    try {
      const bytes = readBounded(path); // never a read of /dev/zero or a FIFO a repository links there
      if (path !== userRc && trustStateOf(trustHome, path, digestOfBytes(path, bytes)) !== "trusted") return { path };
      const home = (parseJsonc(configText(bytes)) as { home?: unknown })?.home;
      return { path, home: typeof home === "string" ? home : undefined };
    } catch {
      return { path };
    }
  });
  return resolve(dataHomeOf({ flag, env, cwd, userHome, files }));
}
