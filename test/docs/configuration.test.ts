// docs/configuration.md is the configuration reference: every key the .deerflowrc schema accepts and every
// environment variable the source reads has its row there, so a setting added without docs fails here.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { fileConfigSchema } from "../../src/config/schema.js";
import { leafPaths } from "../support/schema-paths.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const doc = readFileSync(join(ROOT, "docs/configuration.md"), "utf8");
/** The first cell of each table row, e.g. "`models.<name>.baseUrl`". */
const rows = new Set([...doc.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : /\.tsx?$/.test(name) ? [p] : [];
  });
}

describe("docs/configuration.md", () => {
  it("has a row for every .deerflowrc key of the schema (a record's name written <name>)", () => {
    const keys = leafPaths(fileConfigSchema as unknown as z.ZodType).map((p) => p.replace(/\.\*\./g, ".<name>."));
    expect(keys.length).toBeGreaterThan(50);
    expect(
      keys.filter((k) => !rows.has(k)),
      "document these in docs/configuration.md",
    ).toEqual([]);
  });

  it("has a row for every DEERFLOW_* / OPENAI_* environment variable the source names", () => {
    const text = sources(join(ROOT, "src"))
      .map((f) => readFileSync(f, "utf8"))
      .join("\n");
    const vars = [...new Set([...text.matchAll(/\b(?:DEERFLOW|OPENAI)_[A-Z][A-Z_]*[A-Z]\b/g)].map((m) => m[0]))];
    expect(vars).toEqual(expect.arrayContaining(["DEERFLOW_HOME", "OPENAI_API_KEY", "DEERFLOW_DATABASE_URL"]));
    expect(vars.filter((v) => !rows.has(v)).sort(), "document these in docs/configuration.md").toEqual([]);
  });

  it("documents no key the schema lost", () => {
    const keys = new Set(leafPaths(fileConfigSchema as unknown as z.ZodType).map((p) => p.replace(/\.\*\./g, ".<name>.")));
    const stale = [...rows].filter((r) => /^[a-z][A-Za-z]*(\.|$)/.test(r) && !keys.has(r));
    expect(stale).toEqual([]);
  });
});
