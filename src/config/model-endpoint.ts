// Which base URL a model talks to and which key goes with it (and `$ENV_NAME` secrets): split from load.ts, which
// merges the files; this decides what may be sent where.
import { createHash } from "node:crypto";
import { ConfigError } from "../errors.js";

/** Resolve `$ENV_NAME` references; literal strings pass through. */
export function resolveSecret(value: string | undefined, env: NodeJS.ProcessEnv, where: { file?: string; keyPath: string }) {
  if (value === undefined || !value.startsWith("$")) return value;
  const name = value.slice(1);
  const got = env[name];
  if (!got) {
    throw new ConfigError(`${where.file ? `Config ${where.file}` : "Config"} at "${where.keyPath}" reads the environment variable ${name}, which is not set.`, {
      file: where.file,
      keyPath: where.keyPath,
      hint: `Export ${name} or change "${where.keyPath}".`,
    });
  }
  return got;
}

interface Sourced {
  /** The file that set it; undefined: the environment, a flag or a default (the user). */
  file?: string;
}

/**
 * The base URL and the key sent to it. A key goes only to a URL from the same source: "the user" (environment,
 * flags, ~/.deerflowrc, defaults) or one project file. So the user's OPENAI_API_KEY never goes to a URL a project
 * chose (unless that file names it itself: `apiKey: "$OPENAI_API_KEY"`), and a project's key never to the user's
 * endpoint. `keys` in precedence order; the first of the URL's source is used, and one skipped before it is named.
 * No key left: the request goes without one (a local server needs none; a 401 and `deerflow config` say why).
 */
export function modelEndpoint(o: { url: Sourced & { value: string }; keys: (Sourced & { ref?: string; keyPath: string })[]; env: NodeJS.ProcessEnv; userRc: string }) {
  const sourceOf = (s: Sourced) => (s.file === undefined || s.file === o.userRc ? "the user" : s.file);
  const keys = o.keys.filter((k) => k.ref);
  const key = keys.find((k) => sourceOf(k) === sourceOf(o.url));
  const skipped = keys.find((k) => k !== key && keys.indexOf(k) < (key ? keys.indexOf(key) : keys.length));
  const baseUrl = o.url.value;
  const what = (k: (typeof keys)[number]) => (k.keyPath === "OPENAI_API_KEY" ? "OPENAI_API_KEY" : `the key at "${k.keyPath}" of ${sourceOf(k)}`);
  return {
    baseUrl,
    apiKey: key ? resolveSecret(key.ref, o.env, { file: key.file, keyPath: key.keyPath }) : undefined,
    keyWithheld: skipped ? `${what(skipped)} is not sent to ${baseUrl.replace(/\/+$/, "")}: that URL comes from ${sourceOf(o.url)}, and a key goes only to a URL from the same source` : undefined,
  };
}

/**
 * Which endpoint receives a model's conversation, as one opaque value: its id (on a gateway, the provider), its base
 * URL and its key (hashed, never stored as is). The memory queue keeps it with each run, so the run's transcript is
 * extracted only by the endpoint that already had it.
 */
export function endpointIdentity(m: { model: string; baseUrl: string; apiKey?: string }): string {
  return createHash("sha256")
    .update(JSON.stringify([m.model, m.baseUrl.replace(/\/+$/, ""), m.apiKey ?? ""]))
    .digest("hex");
}
