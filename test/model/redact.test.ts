// Secret scrubbing of what providers echo: the configured key in any form, and anything shaped like an API key.
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/model/redact.js";

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
});
