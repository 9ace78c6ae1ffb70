// PII redaction: what a personal value looks like (e-mail, phone, card number, national ID, API key) and how it is
// masked in text that leaves the machine. One home for it: the PiiRedaction middleware masks model requests with
// it, the summary side call too, and memory (issue 17b) can redact what it stores by importing `redactPii`.
// Placeholders are stable per value within one scope (a thread): `[EMAIL_1f3a9c20]` is an HMAC of the value keyed by
// the scope, so the same address reads the same in every request of the thread (the model can still refer to it)
// and differs between threads; it cannot be reversed by the provider without the key (the thread id, which is never
// sent). `restore` maps placeholders back to the values this redactor has seen (for the model's answers and tool
// calls). Package-free on purpose: importable from any layer.
import { createHmac } from "node:crypto";
import { secretShapeRanges } from "./secret-shapes.js";

export type PiiKind = "EMAIL" | "PHONE" | "CARD" | "ID" | "SECRET";

/** A placeholder as it appears in masked text. */
export const PII_PLACEHOLDER = /\[(EMAIL|PHONE|CARD|ID|SECRET)_[0-9a-f]{8}\]/g;

const EMAIL = /\b[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24}\b/g;
// Card numbers: 13–19 digits, optionally grouped by spaces or dashes; kept only when the Luhn check passes.
const CARD = /\b\d(?:[ -]?\d){12,18}\b/g;
// National IDs: US SSN (not 000/666/9xx area), UK NINO, China resident ID (18 chars, checksum verified below).
const SSN = /\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b/g;
const NINO = /\b[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b/g;
const CN_ID = /\b[1-9]\d{5}(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx]\b/g;
// Phones: an international number (+ and 8–15 digits, separators allowed), or a grouped national one like
// (555) 123-4567 / 555-123-4567 / 0151 2345 6789. Bare digit runs are not phones (ids, timestamps, line numbers).
const PHONE_INTL = /(?<![\w+])\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,5}(?![\w-])/g;
const PHONE_GROUPED = /(?<![\w.+-])(?:\(\d{2,4}\)[ .-]?|\d{3,4}[ .-])\d{3,4}[ .-]\d{3,5}(?![\w.-])/g;

export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double && (d *= 2) > 9) d -= 9;
    sum += d;
    double = !double;
  }
  return digits.length >= 13 && sum % 10 === 0;
}

function cnIdValid(id: string): boolean {
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = weights.reduce((n, w, i) => n + w * (id.charCodeAt(i) - 48), 0);
  return "10X98765432"[sum % 11] === id[17]!.toUpperCase();
}

function digitCount(s: string): number {
  return s.replace(/\D/g, "").length;
}

interface Found {
  start: number;
  end: number;
  kind: PiiKind;
}

function collect(text: string, re: RegExp, kind: PiiKind, keep: (m: string) => boolean, out: Found[]): void {
  re.lastIndex = 0;
  for (const m of text.matchAll(re)) if (keep(m[0])) out.push({ start: m.index, end: m.index + m[0].length, kind });
}

/** The personal values in `text`, left to right, without overlaps (of two overlapping ones, the earlier kind below wins). */
export function findPii(text: string): Found[] {
  const found: Found[] = [];
  const hasDigit = /\d/.test(text);
  for (const r of secretShapeRanges(text)) found.push({ ...r, kind: "SECRET" });
  // Cheap checks first: most text has no "@", and many messages no digits at all.
  if (text.includes("@")) collect(text, EMAIL, "EMAIL", () => true, found);
  if (hasDigit) {
    collect(text, CARD, "CARD", (m) => luhnValid(m.replace(/\D/g, "")), found);
    collect(text, CN_ID, "ID", cnIdValid, found);
    collect(text, SSN, "ID", () => true, found);
    collect(text, NINO, "ID", () => true, found);
    if (text.includes("+")) collect(text, PHONE_INTL, "PHONE", (m) => digitCount(m) >= 8 && digitCount(m) <= 15, found);
    collect(text, PHONE_GROUPED, "PHONE", (m) => digitCount(m) >= 9 && digitCount(m) <= 13, found);
  }
  if (found.length < 2) return found;
  // One sweep in position order (O(n log n)): an overlap keeps the match of the higher-priority kind.
  const rank = new Map(found.map((f, i) => [f, i]));
  const sorted = [...found].sort((a, b) => a.start - b.start || rank.get(a)! - rank.get(b)!);
  const kept: Found[] = [];
  for (const f of sorted) {
    const last = kept.at(-1);
    if (!last || f.start >= last.end) kept.push(f);
    else if (rank.get(f)! < rank.get(last)!) kept[kept.length - 1] = f;
  }
  return kept;
}

const CACHE_ENTRIES = 4096;

export interface PiiRedactor {
  /** `text` with every personal value replaced by its placeholder. */
  redact(text: string): string;
  /** `text` with the placeholders this redactor produced replaced by their values again (others stay). */
  restore(text: string): string;
  /** How many distinct values it has masked so far. */
  readonly size: number;
}

/** A redactor whose placeholders are stable for `scope` (a thread id). Keeps the values it saw, to restore them. */
export function createPiiRedactor(scope: string): PiiRedactor {
  const values = new Map<string, string>();
  // Every request re-sends the whole history: a text masked once is not scanned again (bounded, oldest out).
  const done = new Map<string, string>();
  const placeholder = (kind: PiiKind, value: string) => {
    const p = `[${kind}_${createHmac("sha256", scope).update(`${kind}\0${value}`).digest("hex").slice(0, 8)}]`;
    values.set(p, value);
    return p;
  };
  return {
    redact(text: string): string {
      if (!text) return text;
      const cached = done.get(text);
      if (cached !== undefined) return cached;
      const found = findPii(text);
      let out = found.length === 0 ? text : "";
      let at = 0;
      for (const f of found) {
        out += text.slice(at, f.start) + placeholder(f.kind, text.slice(f.start, f.end));
        at = f.end;
      }
      if (found.length > 0) out += text.slice(at);
      if (done.size >= CACHE_ENTRIES) done.delete(done.keys().next().value!);
      done.set(text, out);
      return out;
    },
    restore(text: string): string {
      if (!text || values.size === 0) return text;
      return text.replace(PII_PLACEHOLDER, (p) => values.get(p) ?? p);
    },
    get size() {
      return values.size;
    },
  };
}

/** One-shot masking (e.g. memory): `text` with its personal values replaced by placeholders stable for `scope`. */
export function redactPii(text: string, scope = "deerflow"): string {
  return createPiiRedactor(scope).redact(text);
}
