// The PII shapes and placeholders (src/vocabulary/pii-redaction.ts): what is masked, what is not (ids, timestamps,
// versions, Luhn-invalid numbers), stable placeholders per scope, and restore.
import { describe, expect, it } from "vitest";
import { createPiiRedactor, findPii, luhnValid, redactPii } from "../../src/vocabulary/pii-redaction.js";

const kinds = (text: string) => findPii(text).map((f) => [f.kind, text.slice(f.start, f.end)]);

describe("findPii", () => {
  it("finds e-mails, phones, Luhn-valid cards, national IDs and key shapes", () => {
    expect(kinds("mail jane.doe+x@mail.example.co.uk now")).toEqual([["EMAIL", "jane.doe+x@mail.example.co.uk"]]);
    expect(kinds("call +1 415-555-0132 or (415) 555-0199 or 0151 2345 6789")).toEqual([
      ["PHONE", "+1 415-555-0132"],
      ["PHONE", "(415) 555-0199"],
      ["PHONE", "0151 2345 6789"],
    ]);
    expect(kinds("card 4111 1111 1111 1111, 5500-0000-0000-0004, 4111111111111112")).toEqual([
      ["CARD", "4111 1111 1111 1111"],
      ["CARD", "5500-0000-0000-0004"],
    ]);
    expect(kinds("ssn 123-45-6789 nino AB 12 34 56 C cn 11010519491231002X bad-cn 110105194912310021")).toEqual([
      ["ID", "123-45-6789"],
      ["ID", "AB 12 34 56 C"],
      ["ID", "11010519491231002X"],
    ]);
    expect(kinds("OPENAI=sk-abcdefghijklmnopqrstuvwx; Authorization: Bearer abcdefgh12345678; postgres://bob:hunter2pass@db/x")).toEqual([
      ["SECRET", "sk-abcdefghijklmnopqrstuvwx"],
      ["SECRET", "abcdefgh12345678"],
      ["SECRET", "hunter2pass"],
    ]);
  });

  it("leaves code-ish numbers alone: timestamps, versions, IPs, ports, line numbers, hashes, uuids", () => {
    const text = "at 2026-11-30 12:30:45 v1.2.3 192.168.1.10:8080 line 1234567890 sha 4b53ad8e12431329 id 123e4567-e89b-12d3-a456-426614174000 1700000000000";
    expect(kinds(text)).toEqual([]);
  });

  it("Luhn", () => {
    expect(luhnValid("4111111111111111")).toBe(true);
    expect(luhnValid("4111111111111112")).toBe(false);
  });
});

describe("createPiiRedactor", () => {
  it("stable placeholder per value within a scope, different across scopes; restore gives the text back", () => {
    const a = createPiiRedactor("thread-a");
    const text = "write to jane@example.com; again: jane@example.com; card 4111 1111 1111 1111";
    const masked = a.redact(text);
    expect(masked).not.toContain("jane@example.com");
    expect(masked).not.toContain("4111");
    const [p1, p2] = masked.match(/\[EMAIL_[0-9a-f]{8}\]/g)!;
    expect(p1).toBe(p2);
    expect(createPiiRedactor("thread-a").redact("jane@example.com")).toBe(p1);
    expect(createPiiRedactor("thread-b").redact("jane@example.com")).not.toBe(p1);
    expect(a.restore(masked)).toBe(text);
    // A placeholder it never produced stays as it is.
    expect(a.restore("[EMAIL_00000000]")).toBe("[EMAIL_00000000]");
  });

  it("redactPii is the one-shot form (memory)", () => {
    expect(redactPii("ping bob@corp.io")).toMatch(/^ping \[EMAIL_[0-9a-f]{8}\]$/);
  });
});

describe("hostile text", () => {
  it("a long run that almost looks like a URL, an address or a phone is scanned in one pass and still masks what follows", () => {
    const r = createPiiRedactor("t");
    const text = `${"a.".repeat(50_000)} ${"a@".repeat(100)}${"b.".repeat(20_000)} +1${" 1".repeat(20_000)} then postgres://u:hunter2pw@db and x@y.io`;
    const out = r.redact(text);
    expect(out).not.toContain("hunter2pw");
    expect(out).not.toContain("x@y.io");
    expect(r.restore(out)).toBe(text);
  });
});
