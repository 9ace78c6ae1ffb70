// "A function that does several jobs is split along its seams": in runtime/ (where the run lifecycle lives) no
// function or method body runs past 80 lines. Measured on the source with the TypeScript parser.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src", import.meta.url));
const MAX_LINES = 80;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(name) ? [p] : [];
  });
}

function longFunctions(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = (node as ts.FunctionLikeDeclaration).name?.getText(source) ?? "(anonymous)";
      if (end - start + 1 > MAX_LINES) out.push(`${relative(SRC, file)}:${start + 1} ${name} (${end - start + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe("function size", () => {
  it(`no function in runtime/ is longer than ${MAX_LINES} lines`, () => {
    expect(files(join(SRC, "runtime")).flatMap(longFunctions)).toEqual([]);
  });
});
