// Where this user's credentials are on this machine: the home's listed folders and files (secret-paths.ts), the real
// places those are links to (a dotfiles repository or a synced folder: `~/.ssh -> /data/dotfiles/ssh`), and the places
// the tools' standard variables move them to (XDG_CONFIG_HOME, DOCKER_CONFIG, GNUPGHOME, KUBECONFIG, …). The
// thirty-eighth pass's A38a-3 read a gh token under an XDG_CONFIG_HOME outside the home, a docker login under
// DOCKER_CONFIG and the target of a linked ~/.ssh, all of which the sandbox hid only under their home names. One list
// for the sandbox (bwrap-args.ts), the file tools (paths.ts) and the unconfined checks (host-secrets.ts).
import { type Dirent, readdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { HOME_SECRET_DIRS, HOME_SECRET_FILES } from "../vocabulary/secret-paths.js";
import { isInside } from "./paths.js";
import { realOrSelf } from "./real-path.js";

/** Variables naming a folder that holds logins. */
const DIR_VARS = ["DOCKER_CONFIG", "GNUPGHOME", "GH_CONFIG_DIR", "PASSWORD_STORE_DIR", "CLOUDSDK_CONFIG", "AZURE_CONFIG_DIR", "KAGGLE_CONFIG_DIR", "OCI_CLI_CONFIG_DIR", "ZDOTDIR"];
/** Variables naming login files (`:`-separated lists, as KUBECONFIG). */
const FILE_VARS = [
  ...["KUBECONFIG", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "GIT_CONFIG_GLOBAL", "NPM_CONFIG_USERCONFIG", "npm_config_userconfig", "RCLONE_CONFIG", "PIP_CONFIG_FILE", "NETRC"],
  // the thirty-ninth pass's A39-3
  ...["HISTFILE", "GOOGLE_APPLICATION_CREDENTIALS", "PGPASSFILE", "TF_CLI_CONFIG_FILE", "SOPS_AGE_KEY_FILE", "VAULT_CONFIG_PATH", "BORG_PASSCOMMAND_FILE"],
];
/**
 * The variables that name a hidden place itself: a command in bubblewrap does not get them (git given a
 * GIT_CONFIG_GLOBAL it cannot read stops; the tool's own default, hidden too, is what it finds).
 */
export const HIDDEN_PLACE_VARS: readonly string[] = [...DIR_VARS, ...FILE_VARS];
/** Variables naming a tool's home, and its login files there. */
const HOME_VARS: Record<string, readonly string[]> = {
  CARGO_HOME: ["credentials.toml", "credentials"],
  GRADLE_USER_HOME: ["gradle.properties"],
  GEM_HOME: ["credentials"],
  HF_HOME: ["token", "stored_tokens"],
};
/** Base-directory variables, and the prefix of the home's listed names they stand for. */
const BASE_VARS: Record<string, string> = { XDG_CONFIG_HOME: ".config/", XDG_DATA_HOME: ".local/share/" };

/** The real places the links directly inside `dir` lead to. */
function linkTargetsIn(dir: string): { path: string; dir: boolean }[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isSymbolicLink())
    .flatMap((e) => {
      try {
        const path = realpathSync(join(dir, e.name));
        return [{ path, dir: statSync(path).isDirectory() }];
      } catch {
        return []; // dangling
      }
    });
}

/**
 * The home's application folders when they are outside it (moved by XDG_CONFIG_HOME/XDG_DATA_HOME/XDG_STATE_HOME, or
 * `~/.config` a link elsewhere, as GNU stow makes): inside bubblewrap the home is an allow list, and these hold every
 * app's logins, most on no list (the thirty-ninth pass's A39-2), so the sandbox hides them whole.
 */
export function movedAppFolders(home: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const realHome = realOrSelf(home);
  const { own, moved } = applicationFolders(realHome, env);
  // Not the home's own folders (an allow list already), nor the home or a folder above it
  return [...new Set([...moved, ...own].map(realOrSelf))].filter((d) => !own.includes(d) && !isInside(realHome, d));
}

/**
 * The home's application folders, where every app keeps its settings and logins: the home's own (as named) and where
 * the XDG variables move them (absolute values only).
 */
export function applicationFolders(home: string, env: NodeJS.ProcessEnv = process.env): { own: string[]; moved: string[] } {
  return { own: [".config", ".local", ".local/share", ".local/state"].map((d) => join(home, d)), moved: [env.XDG_CONFIG_HOME, env.XDG_DATA_HOME, env.XDG_STATE_HOME].flatMap(absolute) };
}

/** An absolute path a variable names (a relative one names nothing this process can place). */
const absolute = (value: string | undefined) => (value && isAbsolute(value) ? [value] : []);

export interface SecretLocations {
  /** Folders, each as named and as its real path. */
  dirs: string[];
  /** Files, each as named and as its real path. */
  files: string[];
}

/** The credential folders and files of the user whose home is `home`, with `env` (deerflow's own) naming moved ones. */
export function secretLocations(home: string, env: NodeJS.ProcessEnv = process.env): SecretLocations {
  const dirs = HOME_SECRET_DIRS.map((d) => join(home, d));
  const files = HOME_SECRET_FILES.map((f) => join(home, f));
  for (const [name, prefix] of Object.entries(BASE_VARS)) {
    for (const base of absolute(env[name])) {
      for (const d of HOME_SECRET_DIRS) if (d.startsWith(prefix)) dirs.push(join(base, d.slice(prefix.length)));
      for (const f of HOME_SECRET_FILES) if (f.startsWith(prefix)) files.push(join(base, f.slice(prefix.length)));
    }
  }
  for (const name of DIR_VARS) dirs.push(...absolute(env[name]));
  for (const name of FILE_VARS) for (const f of (env[name] ?? "").split(":")) files.push(...absolute(f));
  for (const [name, names] of Object.entries(HOME_VARS)) for (const base of absolute(env[name])) files.push(...names.map((n) => join(base, n)));
  // A link inside a listed folder (`~/.ssh/id_ed25519 -> /keys/id_ed25519`) hides its target too (A39-3).
  for (const d of HOME_SECRET_DIRS.map((d) => join(home, d))) for (const t of linkTargetsIn(d)) (t.dir ? dirs : files).push(t.path);
  const both = (list: string[]) => [...new Set(list.flatMap((p) => [resolve(p), realOrSelf(p)]))];
  // A variable naming the home itself or a folder above it (GNUPGHOME=$HOME) names no login folder to hide.
  return { dirs: both(dirs).filter((d) => !isInside(realOrSelf(home), d)), files: both(files) };
}
