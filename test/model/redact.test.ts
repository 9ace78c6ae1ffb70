// Secret scrubbing of what providers echo: the configured key in any form, and anything shaped like an API key.
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/model/redact.js";
import { scrubEnv } from "../../src/sandbox/env-scrub.js";

describe("redactSecrets", () => {
  it("masks the configured secret wherever it appears, and key-shaped strings of known providers", () => {
    const text = "bad key zz9-plural-z-alpha in header; also sk-proj-abcdefghijklmnop1234, gsk_abcdefghijklmnopqrstu, AIzaSyA1234567890abcdefghij and Bearer abc.def-123456";
    const out = redactSecrets(text, ["zz9-plural-z-alpha"]);
    expect(out).toBe("bad key *** in header; also ***, ***, *** and Bearer ***");
  });

  it("leaves ordinary text alone (short secrets are not used: they would mask common words)", () => {
    const text = "The model `gpt-4o-mini` does not exist or you do not have access to it (sk is not a key).";
    expect(redactSecrets(text, ["abc", undefined])).toBe(text);
  });

  it("shares one list of key shapes with the sandbox's environment scrubbing (a shape known to one is known to both)", () => {
    const shapes = ["ghp_abcdefghijklmnopqrstuvwxyz012345", "AIzaSyA1234567890abcdefghij", "xoxb-1234567890-abcdef", "AKIAABCDEFGHIJKLMNOP", "postgres://u:hunter22@db/x"];
    for (const s of shapes) expect(redactSecrets(`echoed ${s} back`)).not.toContain(s.includes("://") ? "hunter22" : s);
    const env = Object.fromEntries(shapes.map((s, i) => [`HARMLESS_${i}`, `x ${s}`]));
    expect(scrubEnv({ ...env, KEEP: "plain" })).toEqual({ KEEP: "plain" });
  });
});
