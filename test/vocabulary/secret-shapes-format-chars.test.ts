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
  ])("%s: masked where it sits", (_name, text, want) => {
    expect(hasSecretShape(text)).toBe(true);
    expect(maskSecretShapes(text)).toBe(want);
  });

  it("text with format characters and no key is unchanged (an emoji's joiners, a soft hyphen in a word)", () => {
    for (const text of ["family 👨‍👩‍👧 fine", "hyphen\u00adation", `ghp\u200b_short`]) {
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
