// The layer rules of ARCHITECTURE.md, checked on the source: the core never imports the UI, and the TUI reaches
// the runtime only through types (its bundle must paint before LangChain loads).
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../../src", import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(name) ? [p] : [];
  });
}

/** `[specifier, typeOnly]` of every static import/export-from in a file. */
function imports(file: string): [string, boolean][] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+"([^"]+)"/gms)].map((m) => [m[3]!, Boolean(m[2])]);
}

const all = files(SRC).map((f) => ({ rel: relative(SRC, f), imports: imports(f) }));

describe("layers", () => {
  it("nothing below tui/ and cli/ imports ink, react or the TUI", () => {
    const bad = all
      .filter((f) => !f.rel.startsWith("tui/") && !f.rel.startsWith("cli/"))
      .flatMap((f) => f.imports.filter(([s]) => /^(ink|react)(\/|$)/.test(s) || s.includes("/tui/")).map(([s]) => `${f.rel} → ${s}`));
    expect(bad).toEqual([]);
  });

  it("the TUI imports the runtime and lower layers as types only", () => {
    const bad = all
      .filter((f) => f.rel.startsWith("tui/"))
      .flatMap((f) => f.imports.filter(([s, typeOnly]) => !typeOnly && /^(\.\.\/)+(runtime|agent|middleware|tools|sandbox|state|persistence|config|subagents)\//.test(s)).map(([s]) => `${f.rel} → ${s}`));
    expect(bad).toEqual([]);
  });

  it("state/ stays pure: no I/O modules", () => {
    const bad = all
      .filter((f) => f.rel.startsWith("state/"))
      .flatMap((f) => f.imports.filter(([s]) => /^(node:)?(fs|child_process|net|http|https)(\/|$)|better-sqlite3|execa/.test(s)).map(([s]) => `${f.rel} → ${s}`));
    expect(bad).toEqual([]);
  });
});
