// Providers echo what they were sent: a 400 body may quote the API key. Everything the model layer passes on
// (error messages that end up on stderr, in stream-json and in the runs table) goes through here first.
const KEY_PATTERNS = [
  /\b(sk|pk|rk|gsk|xai|fw|or|sk-or-v1|sk-ant-api\d\d)[-_][A-Za-z0-9_-]{12,}/g, // OpenAI, Groq, xAI, OpenRouter, Anthropic…
  /\bAIza[0-9A-Za-z_-]{20,}/g, // Google API keys
  /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
];

/** `text` with every occurrence of the given secrets and of anything shaped like an API key replaced by "***". */
export function redactSecrets(text: string, secrets: (string | undefined)[] = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 6) out = out.split(s).join("***");
  for (const re of KEY_PATTERNS) out = out.replace(re, (_m, p1: string) => (re.source.startsWith("(Bearer") ? `${p1}***` : "***"));
  return out;
}
