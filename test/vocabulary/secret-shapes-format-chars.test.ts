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
