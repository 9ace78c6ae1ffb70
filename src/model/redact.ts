// Providers echo what they were sent: a 400 body may quote the API key. Everything the model layer passes on
// (error messages that end up on stderr, in stream-json and in the runs table) goes through here first.
import { maskSecretShapes } from "../vocabulary/secret-shapes.js";

/** `text` with every occurrence of the given secrets and of anything shaped like an API key replaced by "***". */
export function redactSecrets(text: string, secrets: (string | undefined)[] = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 6) out = out.split(s).join("***");
  return maskSecretShapes(out);
}
