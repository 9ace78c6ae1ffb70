// Streamed answers with piiRedaction: however the provider splits the text into chunks, the deltas put together
// equal the restored whole answer, and no delta ever shows a placeholder of a known value.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { placeholderRestorer } from "../../src/runtime/stream-events.js";
import { createPiiRedactor } from "../../src/vocabulary/pii-redaction.js";

describe("placeholderRestorer", () => {
  it("property: any chunking gives the restored text, never a known placeholder", () => {
    const r = createPiiRedactor("t");
    const masked = r.redact("Mail ann@example.org or call +1 415-555-0132 [not a placeholder] [EMAIL_00000000] a[b");
    fc.assert(
      fc.property(fc.array(fc.nat(masked.length), { maxLength: 12 }), (cuts) => {
        const points = [...new Set([0, ...cuts, masked.length])].sort((a, b) => a - b);
        const s = placeholderRestorer(r.restore);
        const out: string[] = [];
        for (let i = 1; i < points.length; i++) out.push(s.push(masked.slice(points[i - 1], points[i])));
        out.push(s.flush());
        expect(out.join("")).toBe(r.restore(masked));
        for (const d of out) expect(d).not.toMatch(/\[(EMAIL|PHONE)_(?!00000000)[0-9a-f]{8}\]/);
      }),
      { numRuns: 300 },
    );
  });
});
