// The environment a command gets: the host's, minus anything that looks like a credential, judged by the
// variable's name AND by its value (a password inside DATABASE_URL, a token pasted into an unrelated variable,
// the configured API key under any name). Only the names the user lists in `sandbox.passEnv` get in unchecked.
import { existsSync, realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { hasSecretShape, maskSecrets } from "../vocabulary/secret-shapes.js";
import { isInside } from "./paths.js";
import { realOrSelf } from "./real-path.js";
import { sandboxWritable } from "./sandbox-writable.js";
import { heldCredentials } from "../vocabulary/held-credentials.js";

/** The names that say "a credential" (keys, tokens, secrets, passwords), read with camelCase words split (normalName). */
const CREDENTIAL_NAMES: readonly RegExp[] = [
  /(?:^|_)(?:API_?)?KEYS?(?:_\d+)?$/i, // FOO_API_KEY, GPG_KEY, OPENAI_API_KEY_2
  // GITHUB_TOKEN, NPM_TOKEN, TF_TOKEN_app_terraform_io; glued, as Azure Pipelines' SYSTEM_ACCESSTOKEN (the thirty-eighth
  // pass's A38a-2), but not TOKENIZERS_PARALLELISM
  /TOKENS?(?:_|$)/i,
  /(?:^|_)SECRETS?(?:_|$)/i, // CLIENT_SECRET, SECRET_KEY_BASE
  // DB_PASSWORD, PGPASSWORD, MYSQL_PWD, SSHPASS, GPG_PASSPHRASE (not PWD or OLDPWD: working directories)
  /PASSWORD|PASSWD|PASSPHRASE|(?:^|_)PASS$|^SSHPASS$|_PWD$/i,
  /(?:^|_)CREDENTIALS?(?:_|$)/i, // GOOGLE_APPLICATION_CREDENTIALS
  // AZURE_DEVOPS_EXT_PAT, SENTRY_DSN, SLACK_WEBHOOK_URL, DOCKER_AUTH_CONFIG, NPM_CONFIG__AUTH (the seventh pass)
  /(?:^|_)(?:PAT|DSN|WEBHOOK(?:_URL)?|AUTH(?:_CONFIG)?)$/i,
  // TAILSCALE_AUTHKEY, NPM_CONFIG__AUTHTOKEN, BW_SESSION, OP_SESSION_x, MNEMONIC, DB_PW (the eighth pass)
  /AUTHKEY|AUTHTOKEN|MNEMONIC|^BW_SESSION$|^OP_SESSION_|(?:^|_)PW$/i,
  // *_PRIVATE_KEY_HEX, SECRETKEY, ACCESSKEY, SEED_PHRASE, SESSION_COOKIE, JWT, KUBE_CONFIG_DATA (the ninth pass)
  /PRIVATE_?KEY|SECRETKEY|ACCESSKEY|SEED_?PHRASE|COOKIE|(?:^|_)JWT(?:_|$)|^KUBE_?CONFIG_DATA$/i,
  // *_PEM, *_B64, AGE_IDENTITY, WALLET_SEED (not PYTHONHASHSEED), PRIVKEY, ID_RSA, STRIPE_SK, CREDS, AUTHORIZATION,
  // *CONNECTION_STRING, DB_CONN, MONGO_URI, SLACK_HOOK, DOCKER_CONFIG_JSON, NETRC_CONTENT, TOTP, HMAC, SESSION_ID,
  // VAULT_UNSEAL, PGPASS, CLIENTSECRET (the tenth pass)
  /(?:^|_)(?:PEM|B64|IDENTITY|PRIVKEY|ID_(?:RSA|ED25519|ECDSA|DSA)|SK|CREDS|AUTHORIZATION|CONN|URI|HOOK(?:_URL)?|CONFIG_JSON|CONTENT|TOTP|HMAC|SESSION_ID|UNSEAL|PGPASS)$|(?<!HASH)SEED$|CONNECTION_?STRING|(?:CLIENT|APP)SECRET|(?:^|_)HOOK_URL$/i,
  // CLOUDFLARE_APITOKEN's sibling APIKEY, GOOGLE_CLOUD_KEYFILE_JSON, GITHUB_OAUTH, TWITTER_BEARER, SONAR_LOGIN (a
  // token), and Bundler's per-host `user:password` (BUNDLE_GEMS__CONTRIBSYS__COM: a host's dots as `__`) (A38a-2)
  /APIKEY|KEYFILE|(?:^|_)(?:OAUTH|BEARER|LOGIN)$|^BUNDLE_\w*__/i,
];

const SECRET_ENV_PATTERNS: readonly RegExp[] = [
  ...CREDENTIAL_NAMES,
  /^OPENAI_/i,
  /^ANTHROPIC_/i,
  /^AWS_(?:ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN|SECURITY_TOKEN)$/i,
  /^DEERFLOW_/i, // the agent's own configuration (model keys, endpoints) is never the command's business
];

/**
 * A name with its camelCase words split by `_`: Gradle passes `ORG_GRADLE_PROJECT_signingInMemoryKey` and `…ossrhToken`
 * to builds as project properties, and read whole they named no credential (A38a-2).
 */
const normalName = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2");

/** The values of the credential-named variables in `env` (12 characters or more: a short value would mask words), and
 *  the keys deerflow holds from its configuration (held-credentials.ts). */
export function credentialValues(env: NodeJS.ProcessEnv = process.env): string[] {
  const named = Object.entries(env).flatMap(([name, value]) => (value && value.length >= 12 && CREDENTIAL_NAMES.some((re) => re.test(normalName(name))) ? [value] : []));
  return [...new Set([...named, ...heldCredentials()])];
}

/** `text` with key-shaped strings and the credential values deerflow holds (credentialValues) masked as "***". */
export function maskCredentials(text: string): string {
  return maskSecrets(text, credentialValues());
}

/** True when an environment variable's name looks like it holds a secret. */
export function isSecretEnvName(name: string): boolean {
  const normal = normalName(name);
  return SECRET_ENV_PATTERNS.some((re) => re.test(normal));
}

/** True when a value looks like (or contains) a credential; `known` are secrets deerflow holds (API keys). */
export function isSecretEnvValue(value: string, known: readonly string[] = []): boolean {
  if (hasSecretShape(value)) return true;
  return known.some((k) => k.length >= 8 && value.includes(k));
}

export interface ScrubOptions {
  /** Names that pass unchecked (`sandbox.passEnv`). */
  passEnv?: readonly string[];
  /** Secret values held by deerflow: a variable containing one is dropped. */
  secretValues?: readonly string[];
  /** The workspace: PATH folders inside it are dropped (default: the folder deerflow runs in). */
  project?: string;
}

/** A copy of `env` without secret-looking variables (allow by default, strip by name and by value). */
export function scrubEnv(env: NodeJS.ProcessEnv = process.env, options: ScrubOptions = {}): Record<string, string> {
  const pass = new Set(options.passEnv ?? []);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    // An exported CDPATH sends a command's `cd name` somewhere the audit cannot see (the tenth pass's A6).
    if (value === undefined || name === "CDPATH") continue;
    if (!pass.has(name) && (isSecretEnvName(name) || isSecretEnvValue(value, options.secretValues))) continue;
    // A command's own PATH keeps readWrite folders (`pip install --user` then `black`): what the user granted it.
    out[name] = name === "PATH" ? hostPath(value, options.project, []) : value;
  }
  return out;
}

/**
 * PATH without its relative and empty entries (`.`, `./node_modules/.bin`, a trailing `:`), folders that do not exist,
 * and folders a sandboxed command can write: the project, `sandbox.readWrite`, the data directory
 * (sandbox-writable.ts). With the project on it a bare `ls` the audit lets run unasked resolved to a repository's own
 * script (the twelfth pass). Compared by real path, both sides: a PATH entry naming the project through a link
 * (direnv writes the logical `$PWD`) let the repository's `node_modules/.bin/bwrap` run on the host (the fourteenth
 * pass's P2).
 */
export function hostPath(path: string, project = process.cwd(), writable: readonly string[] = sandboxWritable()): string {
  const avoid = [project, ...writable].map((p) => realOrSelf(resolve(p))).filter((p) => p !== "/");
  return path
    .split(delimiter)
    .filter((dir) => {
      if (!isAbsolute(dir)) return false;
      const real = realDir(dir);
      return real !== undefined && !avoid.some((a) => isInside(real, a));
    })
    .join(delimiter);
}

/**
 * The environment of a program deerflow itself runs on the host by name (its git, an MCP server, setsid): `env` with
 * PATH through hostPath, so a `git` or `npx` a sandboxed command wrote into the project's `node_modules/.bin` (on PATH
 * through direnv) is not the one that runs (the sixteenth pass's M1). `project`: the workspace, besides the cwd.
 */
export function hostEnv(env: NodeJS.ProcessEnv = process.env, project?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  out.PATH = hostProgramPath(env.PATH ?? "", project);
  return out;
}

/** PATH for a host program: hostPath's, also without the workspace when it is not the cwd (`-w`). */
export function hostProgramPath(path: string, project?: string): string {
  const once = hostPath(path);
  return project ? hostPath(once, project) : once;
}

/** Where `program` is on the host's filtered PATH (hostProgramPath), or undefined. */
export function onHostPath(program: string, project?: string): string | undefined {
  for (const dir of hostProgramPath(process.env.PATH ?? "", project).split(delimiter)) {
    const p = join(dir, program);
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}

/** The real path of an existing directory, else undefined. */
function realDir(dir: string): string | undefined {
  try {
    const real = realpathSync(dir);
    return statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}
