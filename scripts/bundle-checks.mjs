// Checks on a written bundle. Both bundles run as a vm.Script through V8's code cache (src/cli/code-cache.ts), and on
// Node 20 a dynamic import() in such a script fails once its cache is used ("A dynamic import callback was not
// specified"): the first start works, every later one does not. So a bundled module loads what it leaves external
// with createRequire, and the build refuses an import() of a named module.
import { readFileSync } from "node:fs";
import { parseAst } from "rolldown/parseAst";

// Reached only where Node lacks globalThis.crypto (LangChain's PKCE helper); Node 20 has it.
const NEVER_REACHED = new Set(["node:crypto"]);

/** The module names of the bundle's import() calls whose name is written out (a string or a plain template). */
function namedDynamicImports(node, found = []) {
  if (!node || typeof node !== "object") return found;
  if (Array.isArray(node)) {
    for (const n of node) namedDynamicImports(n, found);
    return found;
  }
  if (node.type === "ImportExpression") {
    const s = node.source;
    if (s?.type === "Literal" && typeof s.value === "string") found.push(s.value);
    if (s?.type === "TemplateLiteral" && s.expressions.length === 0) found.push(s.quasis[0].value.cooked);
  }
  for (const key of Object.keys(node)) if (key !== "type") namedDynamicImports(node[key], found);
  return found;
}

export function refuseDynamicImports(file) {
  const found = namedDynamicImports(parseAst(readFileSync(file, "utf8"))).filter((name) => !NEVER_REACHED.has(name));
  if (found.length === 0) return;
  console.error(`${file}: import() of ${[...new Set(found)].join(", ")} would fail once the code cache is used; load it with createRequire.`);
  process.exit(1);
}
