// The user's home inside the sandbox is an allow list, not a deny list: an empty tmpfs with only the toolchains bound
// back read-only (and the workspace, the user's own sandbox.readOnly/readWrite paths, which bwrap-args.ts binds after
// it). A deny list of secret paths lost to every adversarial pass: each new tool keeps its login somewhere new
// (~/.config/<app>/token), and a script with the network on read one the list had not named. The secret lists in
// vocabulary/secret-paths.ts still apply on top, for secrets inside a directory bound back here (~/.cargo).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { hostEnv } from "./env-scrub.js";
import { globalConfigFiles } from "./host-git-config.js";
import { mtimeOf } from "./repo-code-paths.js";
import { isInside } from "./paths.js";
import { realOrSelf as real } from "./real-path.js";

/**
 * Where toolchains install themselves under a home: version managers, language toolchains and per-user binaries.
 * Read-only in the sandbox (a command can use them, not change them). Caches are not here: they start empty in the
 * sandbox's home (a poisoned cache would otherwise outlive the sandbox); `sandbox.readWrite: ["~/.cache/pip"]` keeps one.
 */
export const HOME_TOOLCHAINS: readonly string[] = [
  ".nvm",
  ".volta",
  ".fnm",
  ".local/share/fnm",
  ".local/share/pnpm",
  ".bun",
  ".deno",
  ".cargo/bin",
  ".rustup",
  ".pyenv",
  ".rbenv",
  ".rvm",
  ".local/bin",
  ".local/lib",
  ".sdkman",
  ".asdf",
  ".local/share/mise",
  ".elan",
  ".ghcup",
  ".opam",
  ".juliaup",
  ".dotnet",
  ".jdks",
  ".nix-profile",
  "go/bin",
  "sdk",
  ".gradle/wrapper",
  ".npm-global",
];

/** Home folders never bound back whole, even when a PATH entry is one of them (they hold logins and keys). */
const NEVER_BOUND = new Set([".config", ".local", ".local/share", ".cache", ".ssh", ".gnupg", ".aws"]);
/** Where apps keep data and logins: never bound as a prefix. */
const APP_DATA = [".config", ".local/share", ".cache"];

/**
 * Home paths to bind back read-only: the known toolchains that exist, the PATH entries inside the home (with their
 * prefix when the entry is `<prefix>/bin`: a toolchain's bin links into its lib), and node's own prefix (the
 * sandbox's supervisor runs on it). `home` is the real path of the user's home.
 */
export function homeToolchainPaths(home: string, pathVar = process.env.PATH ?? "", execPath = process.execPath): string[] {
  const out = new Set<string>();
  const add = (p: string, prefix = false) => {
    const r = real(p);
    if (r === home || !isInside(r, home) || !existsSync(r)) return;
    const rel = r.slice(home.length + 1);
    if (NEVER_BOUND.has(rel)) return;
    if (prefix && APP_DATA.some((d) => isInside(r, join(home, d)))) return;
    out.add(r);
  };
  for (const t of HOME_TOOLCHAINS) add(join(home, t));
  // A PATH entry is bound itself; its prefix only for node's own (the supervisor needs its lib). The seventh pass read
  // flyctl's token in ~/.fly/config.yml when ~/.fly/bin on PATH bound all of ~/.fly.
  const entries = pathVar.split(":").filter((e) => e.startsWith("/"));
  for (const e of entries) add(e);
  add(dirname(execPath));
  if (basename(dirname(execPath)) === "bin") add(dirname(dirname(execPath)), true);
  return [...out].sort();
}

/** Where a toolchain bound back keeps a login of its own: hidden again inside it (files by /dev/null, folders emptied). */
const TOOLCHAIN_SECRET_DIRS = [".dotnet/corefx"];
/** Where version managers keep one install prefix per version (node, python, ruby, maven, gradle). */
const VERSION_PREFIX_PARENTS = [
  ".nvm/versions/node",
  ".volta/tools/image/node",
  ".local/share/fnm/node-versions",
  ".fnm/node-versions",
  ".local/share/mise/installs/node",
  ".asdf/installs/nodejs",
  ".local/share/pnpm/nodejs",
  ".n/n/versions/node",
  ".pyenv/versions",
  ".asdf/installs/python",
  ".local/share/mise/installs/python",
  ".rbenv/versions",
  ".rvm/rubies",
  ".asdf/installs/ruby",
  ".local/share/mise/installs/ruby",
  ".sdkman/candidates/maven",
  ".asdf/installs/maven",
  ".local/share/mise/installs/maven",
  ".sdkman/candidates/gradle",
  ".asdf/installs/gradle",
  ".local/share/mise/installs/gradle",
];
/**
 * A prefix's own settings, where a login or a registry password is written: npm's global npmrc (`npm login -g`),
 * RubyGems' and pip's site-wide files, Maven's global settings.xml and GRADLE_HOME's gradle.properties (repository passwords).
 */
const PREFIX_SECRET_FILES = ["etc/npmrc", "etc/gemrc", "pip.conf", "etc/pip.conf", "conf/settings.xml", "gradle.properties"];

/** Secrets inside the toolchains bound back: each install prefix's settings files and .NET's certificate stores (the files named in secret-paths.ts are hidden wherever they are). */
export function toolchainSecrets(home: string, bound: string[]): { files: string[]; dirs: string[] } {
  const inBound = (p: string) => bound.some((b) => isInside(p, b));
  const dirs = TOOLCHAIN_SECRET_DIRS.map((d) => join(home, d)).filter((d) => existsSync(d) && inBound(d));
  const prefixes = [...bound];
  for (const parent of VERSION_PREFIX_PARENTS) {
    try {
      for (const v of readdirSync(join(home, parent))) prefixes.push(join(home, parent, v), join(home, parent, v, "installation"));
    } catch {
      // not installed
    }
  }
  // By real path: sdkman's `current` is a link to a version folder, and bubblewrap mounts over the file itself.
  const candidates = prefixes.flatMap((p) => PREFIX_SECRET_FILES.map((f) => join(p, f)));
  const files = candidates
    .filter((f) => existsSync(f))
    .map((f) => real(f))
    .filter(inBound);
  return { files: [...new Set(files)], dirs };
}

/** Identities read, by the global config files and their mtimes: every session start asked git (~12 ms, blocking). */
const identities = new Map<string, { stamp: string; id: Record<string, string> }>();

/**
 * The git identity of the host's global config (`user.name`, `user.email`), so commits in the sandbox keep working.
 * Read again when a global config file changes; one changed only in a file it includes is seen by the next process.
 */
function hostGitIdentity(home: string): Record<string, string> {
  const files = globalConfigFiles(home);
  const key = files.join("\0");
  const stamp = files.map(mtimeOf).join(":");
  const hit = identities.get(key);
  if (hit?.stamp === stamp) return hit.id;
  const id = readHostGitIdentity(home);
  identities.set(key, { stamp, id });
  return id;
}

function readHostGitIdentity(home: string): Record<string, string> {
  const out: Record<string, string> = {};
  try {
    const text = execFileSync("git", ["config", "--global", "--includes", "--get-regexp", "^user\\.(name|email)$"], {
      env: { ...hostEnv(), HOME: home },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 5_000,
    });
    for (const line of text.split("\n")) {
      const m = /^user\.(name|email) (.+)$/.exec(line.trim());
      if (m && !/["\\]/.test(m[2]!)) out[m[1]!] = m[2]!;
    }
  } catch {
    // not set, or no git: commits in the sandbox then ask for an identity, as git does anywhere
  }
  return out;
}

/**
 * A minimal `.gitconfig` for the sandbox's home: only the identity, never the host's credential helpers, url
 * rewrites with tokens or aliases that run commands. Written under the data directory (hidden from commands) and
 * bound read-only at `~/.gitconfig`; undefined when the host has no identity.
 */
export function sandboxGitconfig(dataDir: string, home: string): string | undefined {
  const id = hostGitIdentity(home);
  if (Object.keys(id).length === 0) return undefined;
  const dir = join(dataDir, "sandbox");
  const file = join(dir, "gitconfig");
  const body = `# Written by deerflow for its shell sandbox: the identity of your ~/.gitconfig, nothing else.\n[user]\n${Object.entries(id)
    .map(([k, v]) => `\t${k} = "${v}"\n`)
    .join("")}`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(file, body, { mode: 0o600 });
    return file;
  } catch {
    return undefined;
  }
}
