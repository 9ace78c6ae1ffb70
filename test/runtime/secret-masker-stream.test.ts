// A streamed answer is masked piece by piece (runtime/stream-events.ts secretMasker): whatever the split, no
// credential may reach the screen — not in halves ("sk-" + "proj…"), and not after the part that makes it one was
// released ("Authorization: Basic " + "dXNlcjpz…", a key block's BEGIN line then its body: the twenty-seventh pass).
import { describe, expect, it } from "vitest";
import { secretMasker } from "../../src/runtime/stream-events.js";
import { maskSecretShapes } from "../../src/vocabulary/secret-shapes.js";

const basic = Buffer.from("deploy:hunter2-Secret").toString("base64");
const keyBody = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7".repeat(4);
const SAMPLES: [string, string][] = [
  [`Use the header Authorization: Basic ${basic} to log in.`, basic],
  [`curl -H "Authorization: Bearer abcd1234efgh5678" https://api.example.com`, "abcd1234efgh5678"],
  [`Here is the key:\n-----BEGIN PRIVATE KEY-----\n${keyBody}\n${keyBody}\n-----END PRIVATE KEY-----\nKeep it safe.`, keyBody],
  [`Run curl -u admin:s3cretPassw0rd https://example.com now`, "s3cretPassw0rd"],
  [`The cookie is Cookie: session=ab12cd34ef56gh78 and more text`, "ab12cd34ef56gh78"],
  [`OPENAI_API_KEY=sk-proj-${"A1b2C3d4".repeat(6)} in your .env`, `sk-proj-${"A1b2C3d4".repeat(6)}`],
];

/** Every way of streaming `text` in pieces of `size` characters, joined back as the screen shows it. */
function streamed(text: string, size: number, known: string[] = []): string {
  const m = secretMasker(known);
  let out = "";
  for (let i = 0; i < text.length; i += size) out += m.push(text.slice(i, i + size));
  return out + m.flush();
}

describe("the streamed answer's secret masking", () => {
  it.each(SAMPLES)("never shows the credential of %j, however it is split", (text, secret) => {
    for (const size of [1, 2, 3, 5, 7, 11, 16, 40]) {
      const shown = streamed(text, size);
      expect(shown, `pieces of ${size}`).not.toContain(secret.slice(0, 12));
      expect(shown, `pieces of ${size}`).toBe(maskSecretShapes(text));
    }
  });
  it("never shows a known credential value without a key's shape, nor a key split by a zero-width character (A28c-1/2)", () => {
    const gateway = "Zx9Kq2Lm7V#t4Rb8Nc3Hd6Pw1Yj5Qa0";
    const gh = "ghp_Q7w9E2r4T6y8U1i3O5p7A9s2D4f6G8h0J2k7";
    const text = `Your gateway key is ${gateway}, and the token ${gh.slice(0, 3)}\u200b${gh.slice(3, 9)}\u034f${gh.slice(9)} too.`;
    for (const size of [1, 2, 3, 5, 7, 11, 16, 40]) {
      const shown = streamed(text, size, [gateway]);
      expect(shown, `pieces of ${size}`).toBe("Your gateway key is ***, and the token *** too.");
    }
  });

  it("lets ordinary prose through as it streams (only the trailing word is held)", () => {
    const m = secretMasker();
    expect(m.push("The build passed. ")).toBe("The build passed. ");
    expect(m.push("Next, run the ")).toBe("Next, run the ");
    expect(m.push("tests")).toBe("");
    expect(m.flush()).toBe("tests");
  });
});
