// A key split by characters nothing shows (zero-width space, word joiner, soft hyphen, a bidi control) reads whole on
// screen, where the terminal filter takes them out: it is masked like the key it shows as (the twenty-eighth pass's
// A28c-1), and text with such characters but no key is left exactly as it was.
import { describe, expect, it } from "vitest";
import { hasSecretShape, maskKnownSecrets, maskSecretShapes } from "../../src/vocabulary/secret-shapes.js";

const GH = "Q7w9E2r4T6y8U1i3O5p7A9s2D4f6G8h0J2k7";

describe("secret shapes behind format characters", () => {
  it.each([
    ["zero-width space", `t10: ghp\u200b_${GH} done`, "t10: *** done"],
    ["word joiner after the prefix", `t12: sk-\u2060${GH}`, "t12: ***"],
    ["soft hyphen in the prefix", `g\u00adhp_${GH} x`, "*** x"],
    ["one in the body, one before", `\u200eghp_${GH.slice(0, 10)}\u200d${GH.slice(10)}!`, "\u200e***!"],
    ["bidi control inside a bearer token", `Authorization: Bearer abc\u202edef123456789`, "Authorization: Bearer ***"],
    // the twenty-ninth pass's A29c-1: characters that draw as nothing without being Cf
    ["combining grapheme joiner", `ghp\u034f_${GH}`, "***"],
    ["variation selector", `AKIA\ufe0fQ7W9E2R4T6Y8U1I0 x`, "*** x"],
    ["Mongolian free variation selector", `ghp_${GH.slice(0, 5)}\u180b${GH.slice(5)}`, "***"],
    ["Khmer inherent vowel", `ghp_${GH.slice(0, 5)}\u17b4${GH.slice(5)}`, "***"],
    // the thirtieth pass's A30c-3/7: an escape sequence or a control character the terminal filter then removes
    ["SGR reset inside", `ghp_${GH.slice(0, 8)}\u001b[0m${GH.slice(8)}`, "***"],
    ["NUL inside", `ghp_${GH.slice(0, 8)}\u0000${GH.slice(8)}`, "***"],
    ["colour before it (grep --color)", `key=\u001b[01;31mghp_${GH}\u001b[m`, "key=\u001b[01;31m***\u001b[m"],
  ])("%s: masked where it sits", (_name, text, want) => {
    expect(hasSecretShape(text)).toBe(true);
    expect(maskSecretShapes(text)).toBe(want);
  });

  it("text with format characters and no key is unchanged (an emoji's joiners, a soft hyphen in a word)", () => {
    for (const text of ["family 👨‍👩‍👧 fine", "hyphen\u00adation", `ghp\u200b_short`, "plain \u001b[1mbold\u001b[0m"]) {
      expect(hasSecretShape(text)).toBe(false);
      expect(maskSecretShapes(text)).toBe(text);
    }
  });

  it("a known value split the same way is masked too; a key-shaped string without format characters as before", () => {
    const key = "Zx9Kq2Lm7Vt4Rb8Nc3Hd6Pw1Yj5Qa0";
    expect(maskKnownSecrets(`key=${key.slice(0, 9)}\u200b${key.slice(9)} and ${key}.`, [key])).toBe("key=*** and ***.");
    expect(maskSecretShapes(`plain ghp_${GH}`)).toBe("plain ***");
    expect(maskSecretShapes(`glpat-${GH.slice(0, 20)}`)).toBe("***");
  });
});

// The thirtieth pass: a key after an escape's letter (a JSON string's `\n`, a URL's `%3D`) and an AWS secret by the names
// AWS gives it were never masked (A30c-8, A30c-10); a name glued to a prefix is still no key.
describe("keys after escapes, and AWS secrets by name", () => {
  it.each([
    ['{"a":"x\\nghp_Q7w9E2r4T6y8U1i3O5p7A9s2D4f6G8h0J2k4"}', '{"a":"x\\n***"}'],
    ["key%3Dsk-proj-Q7w9E2r4T6y8U1i3O5p7", "key%3D***"],
    ["id:\\tAKIAQ7W9E2R4T6Y8U1I0", "id:\\t***"],
    ["aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ7w9E2r4T", "aws_secret_access_key = ***"],
    ['"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCY", "SessionToken": "IQoJb3JpZ2luX2VjEJr//////////wEaCXVz"', '"SecretAccessKey": "***", "SessionToken": "***"'],
    ['export AWS_SECRET_ACCESS_KEY="wJalrXUtnFEMI/K7MDENG/bPxRfiCY"', 'export AWS_SECRET_ACCESS_KEY="***"'],
  ])("%j is masked", (text, want) => {
    expect(maskSecretShapes(text)).toBe(want);
  });
  it.each(["user_pk_column_name", "myghp_notakey", "aws_secret_access_key is required", "x\\nplain text"])("%j stays as written", (text) => {
    expect(maskSecretShapes(text)).toBe(text);
  });
});

// The thirty-eighth pass's A38a-7: services' token formats the shapes did not know. Each sample has its documented
// shape (the source is named beside the shape in secret-shapes.ts); the bodies are made up, built here so no
// contiguous token sits in the source. Near misses (ordinary words, a git sha, a UUID, a prefix alone) stay as written.
describe("more services' token formats", () => {
  /** A made-up body of `n` characters from `alphabet` (a fixed sequence, so the test is the same on every run). */
  const body = (alphabet: string, n: number, seed = 7) => Array.from({ length: n }, (_, i) => alphabet[(i * 31 + seed * 17 + ((i * i) % 13)) % alphabet.length]).join("");
  const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const HEX = "0123456789abcdef";
  const B64 = `${ALNUM}+/`;
  const BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";
  it.each([
    ["Slack app-level token", `xapp-1-A05${body("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 8)}-5937${body("0123456789", 9)}-${body(HEX, 64)}`],
    ["Tailscale auth key", `tskey-auth-k${body(ALNUM, 10)}CNTRL-${body(ALNUM, 32, 3)}`],
    ["Docker Hub personal access token", `dckr_pat_${body(`${ALNUM}_-`, 27)}`],
    ["age identity", `AGE-SECRET-KEY-1${body(BECH32, 58)}`],
    ["Grafana service-account token", `glsa_${body(ALNUM, 32)}_${body(HEX, 8, 2)}`],
    ["Atlassian API token", `ATATT3xFfGF0${body(`${ALNUM}_-`, 170)}=${body("0123456789ABCDEF", 8)}`],
    ["1Password service-account token", `ops_eyJzaWduSW5BZGRyZXNzIjoi${body(B64, 120)}`],
    ["Sentry org token", `sntrys_eyJpYXQiOjE3MDAwMDAwMDAsInVybCI6${body(B64, 60)}_${body(ALNUM, 43, 5)}`],
    ["Sentry user token", `sntryu_${body(HEX, 64)}`],
    ["Pulumi access token", `pul-${body(HEX, 40)}`],
    ["RubyGems API key", `rubygems_${body(HEX, 48)}`],
    ["Linear API key", `lin_api_${body(ALNUM, 40)}`],
    ["New Relic user key", `NRAK-${body("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 27)}`],
    ["Postman API key", `PMAK-${body(HEX, 24)}-${body(HEX, 34, 4)}`],
    ["Doppler service token", `dp.st.dev.${body(ALNUM, 40)}`],
    ["Doppler personal token", `dp.pt.${body("abcdefghijklmnopqrstuvwxyz0123456789", 43)}`],
    ["Netlify personal access token", `nfp_${body(ALNUM, 36)}`],
    ["Figma personal access token", `figd_${body(`${ALNUM}_-`, 40)}`],
    ["Twilio API key", `SK${body(HEX, 32)}`],
    ["Mailgun private key", `key-${body(HEX, 32)}`],
    ["Telegram bot token", `${body("123456789", 9)}:AA${body(`${ALNUM}_-`, 33)}`],
    ["Discord webhook URL", `https://discord.com/api/webhooks/1${body("0123456789", 18)}/${body(`${ALNUM}_-`, 68)}`],
  ])("%s: found and masked", (_name, token) => {
    expect(hasSecretShape(`value: ${token} end`), token).toBe(true);
    expect(maskSecretShapes(`value: ${token} end`)).toBe("value: *** end");
  });

  it("an Azure Storage connection string's AccountKey: found, its value masked", () => {
    const key = `${body(B64, 86)}==`;
    const conn = `DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey=${key};EndpointSuffix=core.windows.net`;
    expect(hasSecretShape(conn)).toBe(true);
    expect(maskSecretShapes(conn)).toBe("DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey=***;EndpointSuffix=core.windows.net");
  });

  it.each([
    "skip",
    "keyboard",
    "key-value store",
    "monkey-patching the client",
    "key-0123abcd",
    "commit 6e0771a3f1c2b4d5e6f708192a3b4c5d6e7f8091",
    "id 123e4567-e89b-12d3-a456-426614174000",
    `TASK${body(HEX, 32)}`,
    "SKU-12345 is out of stock",
    "xapp-1-config",
    "tskey-auth is the key kind",
    "dckr_pat_ prefix",
    "AGE-SECRET-KEY-1 starts an identity",
    "glsa_token_name",
    "AccountKey= is empty here; AccountName=devstoreaccount1",
    "NRAK-123",
    "PMAK-abc",
    "dp.st.dev config",
    "nfp_config",
    "figd_file",
    "lin_api_docs",
    "rubygems_org",
    "pul-request",
    "the meeting is at 12:30:45",
    "https://discord.com/api/webhooks is the endpoint",
  ])("%j stays as written", (text) => {
    expect(hasSecretShape(text)).toBe(false);
    expect(maskSecretShapes(text)).toBe(text);
  });
});
