// The library entry: the packed package (what `npm pack` ships) installed into another project exposes
// `createDeerflowAgent` as `import … from "deerflow"` through package.json "exports", with its types, and nothing
// else of the package's insides. Node itself resolves the import (a child `node`, not vitest's resolver), since
// Node's reading of "exports" is what a user's project gets.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packTarball, unpackInto } from "../support/packed.js";

const tmp = mkdtempSync(join(tmpdir(), "deerflow-exports-"));
const project = join(tmp, "project");
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

beforeAll(async () => {
  await unpackInto(await packTarball(tmp), join(project, "node_modules", "deerflow"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
}, 120_000);

const node = (code: string) => execa("node", ["--input-type=module", "-e", code], { cwd: project, reject: false });

describe('the package\'s "exports"', () => {
  it('import { createDeerflowAgent } from "deerflow" is the agent factory, with its anchors and typed errors', async () => {
    const r = await node(`
      import { createDeerflowAgent, nextTo, before, AgentOptionsError, DEFAULT_FEATURES } from "deerflow";
      let refused = "";
      try { createDeerflowAgent("m", [], { middleware: [], features: {} }); } catch (e) { refused = e instanceof AgentOptionsError ? e.code : String(e); }
      console.log(JSON.stringify({ factory: typeof createDeerflowAgent, nextTo: typeof nextTo, before: typeof before, features: typeof DEFAULT_FEATURES, refused }));`);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ factory: "function", nextTo: "function", before: "function", features: "object", refused: "middleware_with_features" });
  });

  it('"deerflow/package.json" is exported; the package\'s insides are not', async () => {
    const r = await node(`
      import { createRequire } from "node:module";
      console.log(createRequire(import.meta.url)("deerflow/package.json").name);
      try { await import("deerflow/dist/cli/main.js"); console.log("reachable"); } catch (e) { console.log(e.code); }`);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim().split("\n")).toEqual(["deerflow", "ERR_PACKAGE_PATH_NOT_EXPORTED"]);
  });

  it("its types resolve from the built .d.ts: a wrong option is a type error, a right one is not", () => {
    const file = join(project, "consumer.ts");
    writeFileSync(
      file,
      `import { createDeerflowAgent, type DeerflowAgentOptions, type DeerflowAgent } from "deerflow";
       const ok: DeerflowAgentOptions = { planMode: true, features: { subagent: false } };
       export const agent: DeerflowAgent = createDeerflowAgent("m", [], ok);
       export const bad: DeerflowAgentOptions = { planMode: "yes" };\n`,
    );
    const program = ts.createProgram([file], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: [],
    });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.start === undefined ? "" : d.file!.getLineAndCharacterOfPosition(d.start).line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^4: Type 'string' is not assignable to type 'boolean/);
  }, 60_000);
});
