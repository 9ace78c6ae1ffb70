// What a credential looks like, whatever the variable or message that carries it: the one list both the model
// layer (masking what providers echo back) and the sandbox (dropping environment variables by value) use, so a
// key shape added for one is caught by the other.
import { HIDDEN } from "./invisible-chars.js";

// Each shape matches the secret itself. Its start is "not after a letter or digit" rather than `\b`: `_` is a word
// character, so `\b` missed a key inside markdown emphasis (`_ghp_…_`, `__sk-…__`) or glued to a name by `_`
// (`x_sk-…`, `AKIA…_`: the seventeenth pass's L5). The short generic prefixes (sk, pk, or…) after a `_` need a digit in
// the body too, so an identifier such as `user_pk_column_name` is not taken for a key.
// A letter before the key that ends an escape is no part of a name: a JSON string's `\n`/`\t`, a URL's `%3D`/`%20`/`%22`
// (`"…\nghp_…"`, `key%3Dsk-proj-…`: the thirtieth pass's A30c-8 sent such keys to the model whole).
const AFTER_ESCAPE = "(?<=\\\\[nrtbf])|(?<=%[0-9A-Fa-f]{2})";
const START = `(?:(?<![A-Za-z0-9])|${AFTER_ESCAPE})`;
const GENERIC = "(?:sk|pk|rk|gsk|xai|fw|or|sk-or-v1|sk-ant-api\\d\\d)[-_]";
const KEY_SHAPES: readonly RegExp[] = [
  new RegExp(`(?:(?<![A-Za-z0-9_])|${AFTER_ESCAPE})${GENERIC}[A-Za-z0-9_-]{12,}|(?<=_)${GENERIC}(?=[A-Za-z0-9_-]*\\d)[A-Za-z0-9_-]{12,}`, "g"), // OpenAI, Groq, xAI, OpenRouter, Anthropic…
  new RegExp(`${START}AIza[0-9A-Za-z_-]{20,}`, "g"), // Google API keys
  new RegExp(`${START}(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|${START}github_pat_[A-Za-z0-9_]{20,}`, "g"), // GitHub tokens
  new RegExp(`${START}glpat-[A-Za-z0-9_-]{16,}`, "g"), // GitLab
  new RegExp(`${START}xox[abprs]-[A-Za-z0-9-]{10,}`, "g"), // Slack
  new RegExp(`${START}(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])`, "g"), // AWS access key ids
  // More registries' and services' token formats, each with its documented prefix (the twentieth pass's LQ3): npm,
  // Hugging Face, PyPI, DigitalOcean, Shopify, HashiCorp Vault, Databricks, SendGrid, Google OAuth access tokens.
  new RegExp(
    `${START}(?:npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,}|pypi-[A-Za-z0-9_-]{50,}|do[pro]_v1_[a-f0-9]{64}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}|hv[sbr]\\.[A-Za-z0-9_-]{24,}|dapi[a-f0-9]{32}|SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}|ya29\\.[A-Za-z0-9_-]{20,})`,
    "g",
  ),
  // The thirty-eighth pass's A38a-7: more services' token formats, each by its documented prefix. Sources: the vendor's
  // docs where they state the format, otherwise the gitleaks rule named after the token (config/gitleaks.toml).
  // Slack app-level tokens (gitleaks slack-app-token), Tailscale keys (tailscale.com/kb/1085/auth-keys: tskey-auth-,
  // tskey-api-, tskey-client-…), Docker Hub personal and organization access tokens (docs.docker.com: dckr_pat_,
  // dckr_oat_), age identities (github.com/FiloSottile/age; gitleaks age-secret-key: bech32 upper case), Grafana
  // service-account and cloud tokens (gitleaks grafana-service-account-token, grafana-cloud-api-token).
  new RegExp(
    `${START}(?:xapp-\\d-[A-Za-z0-9]{6,}-\\d{6,}-[A-Za-z0-9]{20,}|tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}|dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}|AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}(?![A-Za-z0-9])|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}(?![A-Za-z0-9])|glc_[A-Za-z0-9+/]{32,}={0,2})`,
    "g",
  ),
  // Atlassian API tokens (gitleaks atlassian-api-token: ATATT3…), 1Password service-account tokens (gitleaks
  // 1password-service-account-token: ops_eyJ…), Sentry org and user tokens (gitleaks sentry-org-token,
  // sentry-user-token), Pulumi (pulumi-api-token), RubyGems (rubygems-api-token), Linear (linear-api-key), New Relic
  // user, insert and browser keys (new-relic-user-api-key, new-relic-insert-key, new-relic-browser-api-token), Postman
  // (postman-api-token), Doppler (docs.doppler.com "token formats": dp.pt., dp.st., dp.sa., dp.ct., dp.scim., dp.audit.),
  // Netlify personal access tokens (nfp_, Netlify's token format changelog), Figma personal access tokens (figd_,
  // Figma's REST API docs), Twilio API key SIDs (twilio-api-key: SK + 32 hex), Mailgun private keys
  // (mailgun-private-api-token: key- + 32 hex).
  new RegExp(
    `${START}(?:ATATT3[A-Za-z0-9_=-]{60,}|ops_eyJ[A-Za-z0-9+/_-]{40,}={0,3}|sntry[su]_[A-Za-z0-9+/=_-]{40,}|pul-[a-f0-9]{40}|rubygems_[a-f0-9]{48}|lin_api_[A-Za-z0-9]{40}|NRAK-[A-Z0-9]{27}|NRII-[A-Za-z0-9_-]{32}|NRJS-[a-f0-9]{19}|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|dp\\.(?:pt|st|sa|ct|scim|audit)\\.(?:[a-z0-9_-]{1,64}\\.)?[A-Za-z0-9]{40,}|nfp_[A-Za-z0-9]{36,}|figd_[A-Za-z0-9_-]{36,}|SK[0-9a-fA-F]{32}|key-[0-9a-f]{32})(?![A-Za-z0-9])`,
    "g",
  ),
  // A Telegram bot token (core.telegram.org/bots/api "Authorizing your bot": the bot's id, a colon, 35 characters;
  // gitleaks telegram-bot-api-token) and a Discord webhook URL, whose last part is the token
  // (discord.com/developers/docs/resources/webhook "Execute Webhook": /webhooks/{id}/{token}).
  new RegExp(`${START}\\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])`, "g"),
  /https?:\/\/(?:(?:ptb|canary)\.)?discord(?:app)?\.com\/api(?:\/v\d+)?\/webhooks\/\d+\/[A-Za-z0-9_-]{20,}/g,
  // A JSON Web Token (a session or an API token: header.payload.signature, both first parts base64url JSON objects).
  new RegExp(`${START}eyJ[A-Za-z0-9_-]{10,}\\.eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}`, "g"),
  // The whole block, not just its first line: the base64 body is the key (to the end of the text when cut off).
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$(?![\s\S]))/g,
];
const BEARER = /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi;
// Any scheme after an Authorization header's name (`Authorization: Basic …`, `token …`, git's
// `http.extraheader = AUTHORIZATION: basic …` that a CI checkout writes into .git/config: the twenty-fourth pass's
// A24-9), and a bare `Basic <base64>` whose bytes decode to `user:password`.
// The value needs a digit or base64 punctuation, so prose ("Authorization: required for…") stays as written; quotes
// around the header's value or the token are read through (`authorization="token …"`, `Bearer "…"`: A25-8).
const AUTH_HEADER = /(\b(?:Proxy-)?Authorization["']?\s*[:=]\s*["']?(?:[A-Za-z][\w-]*\s+)?["']?)(?=[A-Za-z0-9._~+/=-]*[0-9+/=])[A-Za-z0-9._~+/=-]{8,}/gi;
// Headers that carry a token by name (GitLab's PRIVATE-TOKEN, X-Api-Key, X-Auth-Token, Cookie): a value with a digit,
// so code that names the header (`{"Cookie": cookie_value}`) reads as written — masking runs on what the model reads.
const TOKEN_HEADER = /(\b(?:PRIVATE-TOKEN|X-Api-Key|Api-Key|X-Auth-Token|X-Access-Token|X-Gitlab-Token|Cookie|Set-Cookie)["']?\s*[:=]\s*["']?)(?=[^\s"';]*\d)[^\s"';]{8,}/gi;
// A Digest `response=` or AWS4 `Signature=` (hex), an OAuth 1 signature: `response=requests.get(…)` stays code.
// An AWS secret access key or session token by the names AWS's files, variables and JSON give it (credentials file
// `aws_secret_access_key = …`, `AWS_SECRET_ACCESS_KEY=…`, `"SecretAccessKey": "…"`): no prefix marks the value itself,
// and the key id beside it was masked while the secret went to the model (the thirtieth pass's A30c-10).
const AWS_SECRET = /(\b(?:aws_)?(?:secret_?access_?key|session_?token)["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{16,}/gi;
const AUTH_PARAM = /(\b(?:response|Signature)=["']?)[A-Fa-f0-9]{16,}(?![A-Za-z0-9])/g;
const OAUTH_SIGNATURE = /(\boauth_signature=["']?)[A-Za-z0-9%+/=_-]{16,}/g;
// An Azure Storage or Service Bus connection string's key (learn.microsoft.com "Configure Azure Storage connection
// strings": `DefaultEndpointsProtocol=https;AccountName=…;AccountKey=<base64>`): the value after the name (A38a-7).
const AZURE_KEY = /(\b(?:AccountKey|SharedAccessKey)\s*=\s*["']?)[A-Za-z0-9+/]{20,}={0,2}/g;
// `curl -u user:password` / `--user user:password` (the plain form of a Basic credential).
const CURL_USER = /(\b(?:curl|wget|http|https)\b[^\n]*?\s(?:-u|--user)[\s=]+["']?[^\s:"']{1,128}:)[^\s"']{4,}/g;
const BASIC = /(\bBasic\s+)([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/gi;
const isUserPass = (b64: string) => /^[\x20-\x7e]+:[\x20-\x7e]+$/.test(Buffer.from(b64, "base64").toString("latin1"));
/** Prefixed shapes: the credential is what follows group 1 (for BASIC, only when it decodes to `user:password`). */
const PREFIXED: readonly [RegExp, (m: RegExpMatchArray) => boolean][] = [
  [BEARER, () => true],
  [AUTH_HEADER, () => true],
  [TOKEN_HEADER, () => true],
  [AUTH_PARAM, () => true],
  [AWS_SECRET, () => true],
  [OAUTH_SIGNATURE, () => true],
  [AZURE_KEY, () => true],
  [CURL_USER, () => true],
  [BASIC, (m) => isUserPass(m[2]!)],
];
// scheme://user:password@ (a URL with a password in it). Bounded parts: an unbounded scheme made every position of
// a long "a.a.a…" text rescan to its end (100 KB took 16 s), and this runs on every request with piiRedaction.
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)([^/\s:@]{0,256}):([^/\s@]{1,256})@/gi;
// A credential in a URL's query (`?key=…`, `&access_token=…`, `X-Amz-Signature=…`: gateways and signed URLs): the
// parameter named like one, whole (`api_key`, `client-secret`, `apiKey`), not any name that contains "key".
const URL_QUERY_CREDENTIALS =
  /([?&#](?:[\w.-]{0,64}[_.-])?(?:api|access|auth|refresh|session|private|client|id)?(?:key|token|secret|password|passwd|pass|pwd|sig|signature|auth|credential|jwt)=)([^&#\s"'<>]{1,1024})/gi;

const test = (re: RegExp, text: string) => {
  re.lastIndex = 0;
  return re.test(text);
};

/** Where a prefixed shape may begin: its credential follows within the line (CURL_USER's `curl … -u user:`). */
const PREFIX_START =
  /\b(?:Bearer|Basic|(?:Proxy-)?Authorization|(?:aws_)?secret_?access_?key|(?:aws_)?session_?token|PRIVATE-TOKEN|X-Api-Key|Api-Key|X-Auth-Token|X-Access-Token|X-Gitlab-Token|Set-Cookie|Cookie|response=|Signature=|oauth_signature=|AccountKey|SharedAccessKey|curl|wget)(?![\w-])|(?:^|\s)https?\s/gi;
/** How far after its prefix a credential is still looked for in a stream (a prefix longer ago is released). */
const PREFIX_REACH = 600;

/**
 * Where a stream must hold its text back from, so that a credential is never released before the part that makes it
 * one: an unclosed `-----BEGIN` block, or a prefix (`Authorization: Basic `) on the current line whose credential may
 * still come — released in pieces, "Basic " then "dXNl…" was printed whole because the second piece alone is no
 * credential. `text.length` when nothing needs holding.
 */
export function secretHoldStart(text: string): number {
  const begin = text.lastIndexOf("-----BEGIN");
  if (begin >= 0 && !/-----END[A-Z ]*-----\s/.test(text.slice(begin))) return begin;
  const line = text.lastIndexOf("\n") + 1;
  const tail = text.slice(Math.max(line, text.length - PREFIX_REACH));
  PREFIX_START.lastIndex = 0;
  const first = PREFIX_START.exec(tail);
  return first ? text.length - tail.length + first.index : text.length;
}

// Format characters (Unicode Cf: zero-width space and joiners, the word joiner, bidi controls, the soft hyphen, tags):
// nothing on screen, and the terminal filter drops most of them. One inside a key (`ghp\u200b_…`) broke its shape, so
// the key was stored and printed unmasked, then shown whole once the filter took the character out (the twenty-eighth
// pass's A28c-1). Shapes and known values are also looked for in the text as shown, and masked where they sit.
const FORMAT_CHARS = HIDDEN;

/** `text` as shown (no escape sequence, control or invisible character), and for each of its positions the position in `text`. */
function shown(text: string): { text: string; at: number[] } {
  let out = "";
  const at: number[] = [];
  let from = 0;
  HIDDEN.lastIndex = 0; // matchAll starts where a test() before it stopped
  for (const m of [...text.matchAll(HIDDEN), { index: text.length, 0: "" }]) {
    out += text.slice(from, m.index);
    for (let k = from; k < m.index!; k++) at.push(k);
    from = m.index! + m[0].length;
  }
  return { text: out, at };
}

/** `masked` with what `find` sees in its shown form masked as well (unchanged when it holds no format character). */
function maskShown(masked: string, find: (shownText: string) => { start: number; end: number }[]): string {
  if (!test(FORMAT_CHARS, masked)) return masked;
  const view = shown(masked);
  const ranges = find(view.text).map((r) => ({ start: view.at[r.start]!, end: view.at[r.end - 1]! + 1 }));
  return ranges.length === 0 ? masked : maskRanges(masked, ranges);
}

/** Where each of `values` (8 characters or more) occurs in `text`. */
function valueRanges(text: string, values: readonly string[]): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  for (const v of values) {
    if (v.length < 8) continue;
    for (let i = text.indexOf(v); i >= 0; i = text.indexOf(v, i + v.length)) out.push({ start: i, end: i + v.length });
  }
  return out;
}

/** True when `text` holds something shaped like a credential (a known key format, a bearer token, a URL password). */
export function hasSecretShape(text: string): boolean {
  const look = (t: string) => [...KEY_SHAPES, URL_CREDENTIALS, URL_QUERY_CREDENTIALS].some((re) => test(re, t)) || prefixedRanges(t).length > 0;
  return look(text) || (test(FORMAT_CHARS, text) && look(shown(text).text));
}

/** Where the credentials of PREFIXED shapes sit (after their prefix). */
function prefixedRanges(text: string): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  for (const [re, real] of PREFIXED) {
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) if (real(m)) out.push({ start: m.index + m[1]!.length, end: m.index + m[0].length });
  }
  return out;
}

/** `text` with the given ranges replaced by "***" (overlaps merged). */
function maskRanges(text: string, ranges: { start: number; end: number }[]): string {
  let out = "";
  let at = 0;
  for (const r of [...ranges].sort((a, b) => a.start - b.start)) {
    if (r.end <= at) continue;
    out += `${text.slice(at, Math.max(at, r.start))}***`;
    at = r.end;
  }
  return out + text.slice(at);
}

/** `text` with every key-shaped string replaced by "***" (a bearer token keeps its "Bearer " prefix, a URL its user). */
export function maskSecretShapes(text: string): string {
  let out = text;
  for (const re of KEY_SHAPES) out = out.replace(re, "***");
  return maskShown(maskUrlCredentials(maskRanges(out, prefixedRanges(out))), secretShapeRanges);
}

/** Where key-shaped strings sit in `text` (a bearer token without its "Bearer " prefix, a URL password alone). */
export function secretShapeRanges(text: string): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  for (const re of KEY_SHAPES) {
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) out.push({ start: m.index, end: m.index + m[0].length });
  }
  out.push(...prefixedRanges(text));
  URL_CREDENTIALS.lastIndex = 0;
  for (const m of text.matchAll(URL_CREDENTIALS)) {
    const start = m.index + m[1]!.length + m[2]!.length + 1;
    out.push({ start, end: start + m[3]!.length });
  }
  URL_QUERY_CREDENTIALS.lastIndex = 0;
  for (const m of text.matchAll(URL_QUERY_CREDENTIALS)) out.push({ start: m.index + m[1]!.length, end: m.index + m[0].length });
  return out;
}

/** `text` with every occurrence of the given secret values (8 characters or more) replaced by "***". */
export function maskKnownSecrets(text: string, values: readonly string[]): string {
  let out = text;
  for (const v of values) if (v.length >= 8) out = out.split(v).join("***");
  return maskShown(out, (t) => valueRanges(t, values));
}

/** `https://user:secret@host/v1?key=k` → `https://user:****@host/v1?key=****`. */
export function maskUrlCredentials(text: string): string {
  return text.replace(URL_CREDENTIALS, (_m, scheme: string, user: string) => `${scheme}${user}:****@`).replace(URL_QUERY_CREDENTIALS, "$1****");
}

/** `text` masked by shape and by the given values (the credentials deerflow was started with). */
export function maskSecrets(text: string, known: readonly string[]): string {
  return maskKnownSecrets(maskSecretShapes(text), known);
}

/** Every string inside `value` (arrays and objects walked) masked by shape and by the given values. */
export function maskSecretsDeep(value: unknown, known: readonly string[]): unknown {
  if (typeof value === "string") return maskSecrets(value, known);
  if (Array.isArray(value)) return value.map((v) => maskSecretsDeep(v, known));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSecretsDeep(v, known)]));
  return value;
}
