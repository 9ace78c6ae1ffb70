// docs/events.md is the event reference: every variant of the RunEvent union (the one event stream the printers and
// the TUI consume) has its section there naming each of its fields, and the json result's fields each have a row.
// The union is read with the TypeScript checker, so an event type or field added later without docs fails here.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { createPrinter } from "../../src/cli/output/printer.js";
import type { RunResult } from "../../src/runtime/run-thread.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const doc = readFileSync(join(ROOT, "docs/events.md"), "utf8");

/** The text of the section headed "### `type`" (up to the next heading). */
function section(type: string): string | undefined {
  const at = doc.indexOf(`### \`${type}\`\n`);
  if (at < 0) return undefined;
  const next = doc.slice(at + 4).search(/^#{2,3} /m);
  return next < 0 ? doc.slice(at) : doc.slice(at, at + 4 + next);
}

/** Each variant of RunEvent as its `type` and its field names, read from the source by the checker. */
function runEventVariants(): Map<string, string[]> {
  const file = join(ROOT, "src/runtime/events.ts");
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const alias = source.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === "RunEvent")!;
  const union = checker.getTypeAtLocation(alias.name);
  const out = new Map<string, string[]>();
  for (const variant of union.isUnion() ? union.types : [union]) {
    const typeProp = variant.getProperty("type")!;
    const literal = checker.getTypeOfSymbolAtLocation(typeProp, alias) as ts.StringLiteralType;
    out.set(
      literal.value,
      variant
        .getProperties()
        .map((p) => p.name)
        .filter((n) => n !== "type"),
    );
  }
  return out;
}

describe("docs/events.md", () => {
  const variants = runEventVariants();

  it("reads the whole union from the source", () => {
    expect([...variants.keys()]).toEqual(expect.arrayContaining(["run.started", "tool.completed", "run.completed", "approval.requested", "context.compacted"]));
    expect(variants.get("context.compacted")).toEqual(expect.arrayContaining(["run_id", "tokens_before", "summary_usage"]));
  });

  it("has a section for every event type, naming each of its fields", () => {
    const missing: string[] = [];
    for (const [type, fields] of variants) {
      const text = section(type);
      if (!text) missing.push(type);
      else for (const f of fields) if (!text.includes(`\`${f}\``) && !text.includes(`\`${f}?\``)) missing.push(`${type}.${f}`);
    }
    expect(missing, "document these in docs/events.md").toEqual([]);
  });

  it("documents no event type the stream does not have", () => {
    const documented = [...doc.matchAll(/^### `([a-z.]+)`$/gm)].map((m) => m[1]!);
    expect(documented.filter((t) => !variants.has(t))).toEqual([]);
  });

  it("has a row for every field of the json result, after a run and after a failure", () => {
    const lines: string[] = [];
    const printer = createPrinter("json", { write: (s: string) => lines.push(s) }, { write: () => {} });
    const usage = { input_tokens: 1, output_tokens: 2, total_tokens: 3 };
    const result = {
      thread_id: "t",
      run_id: "r",
      status: "success",
      stop_reason: "clarification",
      final_text: "",
      usage,
      thread_usage: usage,
      messages: [],
      clarification: { question: "q", clarification_type: "missing_info" },
    } as unknown as RunResult;
    printer.result(result, { objective: "o", outcome: "achieved", reason: "", blocker: "", continuation_count: 0, goal_outcome: null });
    printer.failure(new Error("boom"));
    const fields = new Set(lines.flatMap((l) => Object.keys(JSON.parse(l) as object)));
    expect(fields.size).toBeGreaterThan(8);
    const rows = new Set([...doc.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!));
    expect(
      [...fields].filter((f) => !rows.has(f)),
      "document these in docs/events.md",
    ).toEqual([]);
  });
});
