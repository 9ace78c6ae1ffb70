// The model endpoint's base URL, checked before anything is created: a value that is not an http(s) URL
// ("notaurl") used to surface as "internal error: Invalid URL" after a thread was already made, and a URL with
// user:password@ in it as "cannot connect" (fetch refuses such URLs outright), hiding the real cause.
import { ConfigError } from "../errors.js";
import { maskUrlCredentials } from "../vocabulary/secret-shapes.js";

const WHERE = 'OPENAI_BASE_URL (or the model\'s "baseUrl" in .deerflowrc)';

/** Throws a config error (exit 2, one line) unless `baseUrl` is an http(s) URL without credentials. */
export function assertUsableBaseUrl(modelName: string, baseUrl: string): void {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigError(`The base URL of model "${modelName}" is not a URL: ${JSON.stringify(maskUrlCredentials(baseUrl).slice(0, 200))}.`, {
      hint: `Set ${WHERE} to a full http(s) URL, e.g. http://localhost:11434/v1.`,
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`The base URL of model "${modelName}" uses ${url.protocol}, not http: or https:.`, {
      hint: `Set ${WHERE} to a full http(s) URL, e.g. http://localhost:11434/v1.`,
    });
  }
  if (url.username || url.password) {
    // Never the password itself: only that there is one (built from the parsed URL, so an odd password cannot
    // slip past a pattern).
    const shown = `${url.protocol}//${url.username}${url.password ? ":****" : ""}@${url.host}${url.pathname}`;
    throw new ConfigError(`The base URL of model "${modelName}" carries a user name or password (${shown}); credentials in the URL are not supported.`, {
      hint: `Remove "user:password@" from ${WHERE} and put the key in OPENAI_API_KEY (or the model's "apiKey").`,
    });
  }
}
