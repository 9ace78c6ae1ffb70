// Provider error bodies in the one shape the OpenAI SDK reads, so the provider's own words reach the user.
type Json = Record<string, any>;

/** A provider's error body in the OpenAI shape: `{"detail": …}` (FastAPI, vLLM), `{"message": …}`, `{"error": "…"}`. */
export function errorBody(text: string): string {
  // A gateway's HTML error page (Cloudflare, nginx): its title says it; the markup would not.
  if (/^\s*<(!doctype|html)/i.test(text)) {
    const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
    return JSON.stringify({ error: { message: title ? `an HTML page: ${title}` : "an HTML page" } });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text; // plain text: the SDK shows it as is
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return text;
  const b = body as Json;
  if (typeof b.error === "object" && b.error !== null && typeof b.error.message === "string") return text;
  const detail = Array.isArray(b.detail) ? b.detail.map((d: Json) => (typeof d?.msg === "string" ? d.msg : JSON.stringify(d))).join("; ") : b.detail;
  const message = [b.error, detail, b.message, b.error?.msg].find((m) => typeof m === "string" && m.trim() !== "");
  return message === undefined ? text : JSON.stringify({ error: { ...(typeof b.error === "object" && b.error), message } });
}
