// Shell grammar for the audit: a bash command line read by tree-sitter-bash (the grammar opencode and Codex audit
// with), turned into what the policy in shell-audit.ts judges: pipelines of simple commands in the order bash runs
// them, each with its words (quotes removed, expansions kept as written and marked dynamic), its redirections, the
// literal code it also runs (`bash -c '…'`, `eval '…'`, `find -exec …`, a heredoc fed to a shell) and the working
// directory it runs in, tracked through `cd`/`pushd` across `;`, `&&`, `||` and newlines (a subshell, a pipeline
// element and a substitution keep their `cd` to themselves, as in bash).
// WHY a grammar and not a hand lexer: the audit must see what bash will run; a lexer drifts from bash on heredocs,
// nested substitutions and quoting, and every drift is a way around the policy. Where the tree has a syntax error,
// the script says so and the audit asks (bash and the grammar may disagree there).
// Loading is async (WebAssembly): `loadShellGrammar()` starts it once (the audit middleware calls it when the agent
// is built, long before the first tool call); parsing is synchronous after that.
import { createRequire } from "node:module";
import type { Language as TSLanguage, Node, Parser as TSParser } from "web-tree-sitter";
import { arithmeticReadsUnknown } from "./shell-arith.js";
import "./wasm-baseline.js"; // before the grammar is compiled (see the file)
import { type Assignment, type Pipeline, type Redirect, type SimpleCommand, type Word, expandBraces, normalise } from "./shell-command.js";
import { type Cwd, cdTarget } from "./shell-cwd.js";
import { adjacentGroups, braced, hasExpansion, wordOf } from "./shell-words.js";

export interface ShellScript {
  pipelines: Pipeline[];
  /** The grammar found a syntax error (the audit asks rather than guess what bash makes of it). */
  syntaxError: boolean;
  /** Arithmetic reads a variable the line did not set plainly (shell-arith.ts): its value may hold code. */
  unknownArithmetic: boolean;
}

// ---------------------------------------------------------------------------------------------
// loading

let parser: TSParser | undefined;
let loading: Promise<void> | undefined;
let loadError: string | undefined;

/** Loads the grammar once (idempotent); never rejects: a failure is kept and reported by `shellGrammarError`. */
export function loadShellGrammar(): Promise<void> {
  loading ??= (async () => {
    try {
      // createRequire: the CommonJS build of web-tree-sitter finds its own .wasm next to it, from dist/ and from the
      // runtime bundle alike (a dynamic import() is not available inside the code-cached bundle's vm.Script).
      const require = createRequire(import.meta.url);
      const { Parser, Language } = require("web-tree-sitter") as { Parser: typeof TSParser; Language: typeof TSLanguage };
      await Parser.init();
      const bash = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
      const p = new Parser();
      p.setLanguage(bash);
      parser = p;
    } catch (err) {
      loadError = err instanceof Error ? err.message : String(err);
    }
  })();
  return loading;
}

/** Why the grammar could not load, once `loadShellGrammar()` settled; undefined when it loaded (or has not settled). */
export function shellGrammarError(): string | undefined {
  return loadError;
}

/** Parses `command` (the grammar must be loaded: `await loadShellGrammar()` first). */
export function parseShell(command: string, cwd: Cwd = { at: "workspace", depth: 0 }): ShellScript {
  if (!parser) throw new Error(`the bash grammar is not loaded${loadError ? `: ${loadError}` : ""}`);
  // Bash drops a backslash-newline before it splits words (`r\<newline>m` is `rm`); the grammar splits there.
  const tree = parser.parse(command.replace(/(^|[^\\])((?:\\\\)*)\\\n/g, "$1$2"));
  if (!tree) return { pipelines: [], syntaxError: true, unknownArithmetic: false };
  try {
    const ctx: Walk = { pipelines: [], cwd: { ...cwd }, functions: new Map(), calling: new Set() };
    walk(tree.rootNode, ctx);
    return { pipelines: ctx.pipelines, syntaxError: tree.rootNode.hasError, unknownArithmetic: arithmeticReadsUnknown(tree.rootNode) };
  } finally {
    tree.delete(); // the tree lives in WebAssembly memory
  }
}

// ---------------------------------------------------------------------------------------------
// the walk

interface Walk {
  pipelines: Pipeline[];
  cwd: Cwd;
  /** Functions defined so far (their bodies are judged where they are called, in that directory), with the
   *  redirections the definition carries (`f() { …; } > file`: they apply at each call). */
  functions: Map<string, { body: Node; redirects: Node[] }>;
  /** Functions being expanded (a recursive function is expanded once). */
  calling: Set<string>;
  /** The pipeline commands are appended to (undefined: each command is its own pipeline). */
  pipeline?: Pipeline;
}

const REDIRECTS = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"]);
const SUBSTITUTIONS = new Set(["command_substitution", "process_substitution"]);

/** A nested context: its own `cd` stays inside (subshell, pipeline element, substitution). */
const inner = (ctx: Walk, pipeline?: Pipeline): Walk => ({ ...ctx, cwd: { ...ctx.cwd }, pipeline });

function walk(node: Node, ctx: Walk): void {
  switch (node.type) {
    case "command":
      command(node, [], ctx);
      return;
    case "command_name": {
      // A program name the grammar could not attach to a command (inside an ERROR node). `{rm,-rf,~}` reads as a
      // `{` token glued to the name "rm,-rf,~}": glue it back, bash expands the braces into `rm -rf ~`.
      const before = node.previousSibling;
      const glued = before?.type === "{" && before.endIndex === node.startIndex;
      const w = wordOf(node.namedChildren[0] ?? node);
      emit(glued ? expandBraces(`{${w.text}`).map((text) => ({ text, dynamic: w.dynamic })) : braced(node.namedChildren[0] ?? node), [], ctx);
      return;
    }
    case "redirected_statement":
      redirected(node, ctx);
      return;
    case "pipeline": {
      const p: Pipeline = { commands: [] };
      ctx.pipelines.push(p);
      for (const c of node.namedChildren) if (c) walk(c, inner(ctx, p));
      return;
    }
    case "subshell":
    case "command_substitution":
    case "process_substitution":
      for (const c of node.namedChildren) if (c) walk(c, inner(ctx));
      return;
    case "function_definition": {
      // Judged where it is called (below); also here, in case it is called in a way the walk cannot see.
      const name = node.childForFieldName("name")?.text;
      const body = node.childForFieldName("body");
      const redirects = node.namedChildren.filter((c): c is Node => c !== null && REDIRECTS.has(c.type));
      if (body) {
        if (name) ctx.functions.set(name, { body, redirects });
        const here = inner(ctx);
        walk(body, here);
        if (redirects.length > 0) bareRedirection(redirects, here);
      }
      return;
    }
    case "declaration_command":
    case "variable_assignment":
    case "variable_assignments": {
      // `export VAR=…`, `declare -x VAR=…`, a bare `VAR=…` (it changes an already exported variable too).
      const assigns = (node.type === "declaration_command" || node.type === "variable_assignments" ? node.namedChildren : [node])
        .filter((c): c is Node => c?.type === "variable_assignment")
        .map(assignmentNode);
      const name = node.type === "declaration_command" ? (node.children[0]?.text ?? "") : "";
      // Its other words (`-x`, `$x=…`, `'a[$(…)]'`): flags, and names the audit may not be able to read.
      const words = name ? node.namedChildren.filter((c): c is Node => c !== null && isWordNode(c)).map(wordOf) : [];
      const args = words.map((w) => w.text);
      push(
        { name, dynamicName: false, args, dynamicArgs: words.map((w) => w.dynamic), heldCode: words.map((w) => w.heldCode === true), via: [], assigns, code: [], cwd: { ...ctx.cwd }, redirects: [] },
        ctx,
      );
      for (const c of node.namedChildren) if (c) walkSubstitutions(c, ctx);
      return;
    }
    case "unset_command":
    case "unary_expression": {
      // `unset 'a[…]'`, `[ -v 'a[…]' ]`: the name is evaluated as a subscript (judged like a command's words).
      const op = node.childForFieldName("operator")?.text;
      if (node.type === "unset_command" || (node.parent?.type === "test_command" && (op === "-v" || op === "-R"))) {
        const words = node.namedChildren.filter((c): c is Node => c !== null && (isWordNode(c) || c.type === "variable_name")).map(wordOf);
        const args = op ? [op, ...words.map((w) => w.text)] : words.map((w) => w.text);
        const flags = op ? [false, ...words.map((w) => w.heldCode === true)] : words.map((w) => w.heldCode === true);
        push(
          {
            name: op ? "[" : "unset",
            dynamicName: false,
            args,
            dynamicArgs: op ? [false, ...words.map((w) => w.dynamic)] : words.map((w) => w.dynamic),
            heldCode: flags,
            via: [],
            assigns: [],
            code: [],
            cwd: { ...ctx.cwd },
            redirects: [],
          },
          ctx,
        );
      }
      for (const c of node.namedChildren) if (c) walk(c, ctx);
      return;
    }
    case "test_command":
      // `[ … ]` (not `[[ … ]]`) expands globs into its words: shipped names `-v` and `a[$(…)]` make `[ * ]` run code.
      if (node.children[0]?.text === "[") globbedTest(node, ctx);
      for (const c of node.namedChildren) if (c) walk(c, ctx);
      return;
    case "list":
      andOrList(node, ctx);
      return;
    case "if_statement":
    case "while_statement":
    case "for_statement":
    case "c_style_for_statement":
    case "case_statement": {
      // A body that may not run: a `cd` in it moves bash or not, so where the rest runs is not known.
      const before = JSON.stringify(ctx.cwd);
      for (const c of node.namedChildren) if (c) walk(c, ctx);
      if (JSON.stringify(ctx.cwd) !== before) ctx.cwd = { at: "unknown" };
      return;
    }
    case "heredoc_body":
    case "string":
    case "concatenation":
    case "expansion":
      for (const c of node.namedChildren) if (c) walkSubstitutions(c, ctx);
      return;
    default:
      for (const c of node.namedChildren) if (c) walk(c, ctx);
  }
}

/**
 * `a && b || c`: each command is judged where it runs if it runs (after `&&`, every `cd` before it in the chain went
 * through), but only the first surely runs. A `cd` after it may not (`false && cd sub; cat N`, `true || cd sub`: the
 * thirty-third pass's A33b-5 read a link from the folder the audit thought it was in), so when the folder moved after
 * the first command, where a command after `||` and the rest of the line run is not known.
 */
function andOrList(node: Node, ctx: Walk): void {
  const parts: { op?: string; node: Node }[] = [];
  const flatten = (n: Node, op?: string): void => {
    if (n.type !== "list") return void parts.push({ op, node: n });
    const [left, ...rest] = n.children.filter((c): c is Node => c !== null);
    if (left) flatten(left, op);
    let next: string | undefined;
    for (const c of rest) {
      if (c.isNamed) flatten(c, next);
      else next = c.text;
    }
  };
  flatten(node);
  let afterFirst = "";
  for (const [i, part] of parts.entries()) {
    if (i > 0 && part.op === "||" && JSON.stringify(ctx.cwd) !== afterFirst) ctx.cwd = { at: "unknown" };
    walk(part.node, ctx);
    if (i === 0) afterFirst = JSON.stringify(ctx.cwd);
  }
  if (JSON.stringify(ctx.cwd) !== afterFirst) ctx.cwd = { at: "unknown" };
}

/** A `[ … ]` holding a glob is judged as the command `[` with its words (plan and ask mode refuse a glob there). */
function globbedTest(node: Node, ctx: Walk): void {
  const leaves = (n: Node): Node[] => (isWordNode(n) ? [n] : n.namedChildren.filter((c): c is Node => c !== null).flatMap(leaves));
  const words = leaves(node).map(wordOf);
  if (!words.some((w) => w.glob)) return;
  const args = words.map((w) => w.text);
  push(
    { name: "[", dynamicName: false, args, dynamicArgs: words.map((w) => w.dynamic), globArgs: words.map((w) => w.glob === true), via: [], assigns: [], code: [], cwd: { ...ctx.cwd }, redirects: [] },
    ctx,
  );
}

/** The substitutions inside a word (they run before the command, in its directory). */
function walkSubstitutions(node: Node, ctx: Walk): void {
  if (SUBSTITUTIONS.has(node.type)) walk(node, inner(ctx));
  else for (const c of node.namedChildren) if (c) walkSubstitutions(c, ctx);
}

/** `body > f`, `cat <<EOF | python3 -` (the grammar puts the rest of that pipeline inside the heredoc redirect). */
function redirected(node: Node, ctx: Walk): void {
  const body = node.childForFieldName("body");
  const redirects = node.namedChildren.filter((c): c is Node => c !== null && c !== body && REDIRECTS.has(c.type));
  const after: Node[] = [];
  for (const r of redirects) for (const c of r.namedChildren) if (c && !["heredoc_start", "heredoc_body", "heredoc_end", "file_redirect"].includes(c.type) && !isWordNode(c)) after.push(c);
  let pipeline = ctx.pipeline;
  if (!pipeline && after.some((a) => a.type === "pipeline" || a.type === "command")) ctx.pipelines.push((pipeline = { commands: [] }));
  const here = pipeline ? { ...ctx, pipeline } : ctx;
  if (body?.type === "command") command(body, redirects, here);
  else {
    if (body) walk(body, here);
    // Redirections of a compound (`{ a; b; } > f`): a bare redirection in the same place.
    bareRedirection(redirects, { ...here, cwd: ctx.cwd });
  }
  for (const a of after) {
    if (a.type === "pipeline") for (const c of a.namedChildren) c && walk(c, inner(ctx, pipeline));
    else if (a.type === "command") walk(a, inner(ctx, pipeline));
    else walk(a, ctx);
  }
}

/** Redirections that apply to a compound or a function body: judged as a command with no name that has them. */
function bareRedirection(redirects: Node[], ctx: Walk): void {
  push({ name: "", dynamicName: false, args: [], dynamicArgs: [], via: [], assigns: [], code: [], cwd: { ...ctx.cwd }, ...redirectsOf(redirects, ctx) }, ctx);
}

const isWordNode = (n: Node) =>
  ["word", "string", "raw_string", "concatenation", "simple_expansion", "expansion", "number", "ansi_c_string", "command_substitution", "process_substitution"].includes(n.type);

function push(c: SimpleCommand, ctx: Walk): void {
  if (ctx.pipeline) ctx.pipeline.commands.push(c);
  else ctx.pipelines.push({ commands: [c] });
}

function redirectsOf(nodes: Node[], ctx: Walk): Pick<SimpleCommand, "redirects" | "stdinText" | "stdinDynamic"> {
  const redirects: Redirect[] = [];
  let stdinText: string | undefined;
  let stdinDynamic: boolean | undefined;
  for (const r of nodes) {
    for (const c of r.namedChildren) if (c) walkSubstitutions(c, ctx);
    if (r.type === "file_redirect") {
      const dest = r.childForFieldName("destination");
      const op = r.children.find((c) => c !== null && !c.isNamed)?.text ?? ">";
      redirects.push({ op, target: dest ? wordOf(dest).text : "" });
    } else if (r.type === "herestring_redirect") {
      const w = r.namedChildren.find((c): c is Node => c !== null && isWordNode(c));
      stdinText = w ? wordOf(w).text : "";
      stdinDynamic = w ? hasExpansion(w) : false;
      redirects.push({ op: "<<<", target: stdinText });
    } else {
      const bodyNode = r.namedChildren.find((c) => c?.type === "heredoc_body");
      stdinText = bodyNode?.text ?? "";
      stdinDynamic = bodyNode ? hasExpansion(bodyNode) : false;
      redirects.push({ op: "<<", target: "" });
      for (const nested of r.namedChildren) if (nested?.type === "file_redirect") redirects.push(...redirectsOf([nested], ctx).redirects);
    }
  }
  return { redirects, stdinText, stdinDynamic };
}

/** `NAME=value` from the grammar's variable_assignment node. */
function assignmentNode(node: Node): Assignment {
  const value = node.childForFieldName("value");
  const w = value ? wordOf(value) : { text: "", dynamic: false };
  return { name: node.childForFieldName("name")?.text.replace(/\[.*$/s, "") ?? "", value: w.text, dynamic: w.dynamic, heldCode: w.heldCode };
}

function command(node: Node, outer: Node[], ctx: Walk): void {
  const words: Word[] = [];
  const assigns: Assignment[] = [];
  const redirectNodes = [...outer];
  const args: Node[] = [];
  for (const c of node.namedChildren) {
    if (!c) continue;
    if (REDIRECTS.has(c.type)) redirectNodes.push(c);
    else if (c.type === "variable_assignment") {
      walkSubstitutions(c, ctx);
      assigns.push(assignmentNode(c));
    } else if (c.type === "command_name") words.push(...braced(c.namedChildren[0] ?? c));
    else if (isWordNode(c) || c.type === "arithmetic_expansion") args.push(c);
  }
  for (const group of adjacentGroups(args)) words.push(...braced(...group));
  for (const c of node.namedChildren) if (c && c.type !== "variable_assignment" && !REDIRECTS.has(c.type)) walkSubstitutions(c, ctx);
  emit(words, redirectNodes, ctx, assigns);
}

/** Records the simple command `words` (then judges a called function's body, and follows a `cd`). */
function emit(words: Word[], redirectNodes: Node[], ctx: Walk, assigns: Assignment[] = []): void {
  const simple = normalise(words, redirectsOf(redirectNodes, ctx), ctx.cwd, assigns);
  push(simple, ctx);
  const fn = simple.dynamicName ? undefined : ctx.functions.get(simple.name);
  if (fn && !ctx.calling.has(simple.name)) {
    ctx.calling.add(simple.name);
    const call: Walk = { ...ctx, pipeline: undefined };
    walk(fn.body, call);
    if (fn.redirects.length > 0) bareRedirection(fn.redirects, { ...call, cwd: ctx.cwd });
    ctx.calling.delete(simple.name);
    ctx.cwd = call.cwd; // a `{ }` body's cd stays in effect after the call, as in bash
  }
  // The rest of this sequence runs where `cd` went (a pipeline element or subshell has its own `ctx`: see `inner`).
  if (/^(?:cd|pushd)$/.test(simple.name) && !simple.dynamicName) ctx.cwd = cdTarget(ctx.cwd, simple);
  else if (simple.name === "popd") ctx.cwd = { at: "unknown" };
}
