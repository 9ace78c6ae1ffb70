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
import { VIRTUAL_ROOT } from "./paths.js";

export const isFlag = (a: string) => a.startsWith("-") && a !== "-";
/** Programs whose `-c`/`-e` argument, heredoc or piped stdin is code. */
export const SHELLS = /^(?:sh|bash|zsh|dash|ksh|fish|ash|csh|tcsh|python[\d.]*|perl|ruby|node|php)$/;
export const INTERPRETERS = /^(?:python[\d.]*|perl|ruby|node|php)$/;

export interface Redirect {
  op: string;
  target: string;
}

/** Where a command runs, as far as the audit can tell: the workspace (`depth` directories below it) or elsewhere. */
export type Cwd = { at: "workspace"; depth: number } | { at: "home" | "root" | "outside" | "unknown" };

/** One simple command after normalisation. */
export interface SimpleCommand {
  /** Program name (basename), "" for a bare redirection. */
  name: string;
  /** The program name is an expansion (`$x`, `$(…)`): the audit cannot know what runs. */
  dynamicName: boolean;
  /** Arguments after the program name: quotes removed, expansions as written. */
  args: string[];
  /** Per argument: it contains an expansion or substitution (its value is known only at run time). */
  dynamicArgs: boolean[];
  redirects: Redirect[];
  /** Wrappers in front of the program (`sudo`, `xargs`, `env`…), by basename. */
  via: string[];
  /** Literal code this command runs besides itself: `bash -c` scripts, `eval`, `find -exec`, a heredoc to a shell. */
  code: string[];
  /** Text fed to its stdin by a heredoc or here-string (code, when the program is an interpreter). */
  stdinText?: string;
  /** The heredoc or here-string expands variables or substitutions. */
  stdinDynamic?: boolean;
  cwd: Cwd;
}

export interface Pipeline {
  commands: SimpleCommand[];
}

export interface ShellScript {
  pipelines: Pipeline[];
  /** The grammar found a syntax error (the audit asks rather than guess what bash makes of it). */
  syntaxError: boolean;
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
  if (!tree) return { pipelines: [], syntaxError: true };
  try {
    const ctx: Walk = { pipelines: [], cwd: { ...cwd } };
    walk(tree.rootNode, ctx);
    return { pipelines: ctx.pipelines, syntaxError: tree.rootNode.hasError };
  } finally {
    tree.delete(); // the tree lives in WebAssembly memory
  }
}

// ---------------------------------------------------------------------------------------------
// words

const EXPANSIONS = new Set(["simple_expansion", "expansion", "command_substitution", "process_substitution"]);

interface Word {
  text: string;
  dynamic: boolean;
}

const unescape = (s: string) => s.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1");

function hasExpansion(node: Node): boolean {
  if (EXPANSIONS.has(node.type)) return true;
  return node.namedChildren.some((c) => c !== null && hasExpansion(c));
}

function wordOf(node: Node): Word {
  switch (node.type) {
    case "word":
      return { text: unescape(node.text), dynamic: false };
    case "raw_string":
      return { text: node.text.slice(1, -1), dynamic: false };
    case "ansi_c_string":
      return { text: node.text.slice(2, -1), dynamic: false };
    case "string": {
      // children: `"`, string_content, expansions, `"`
      let text = "";
      for (const c of node.children) {
        if (!c || c.type === '"') continue;
        text += c.type === "string_content" ? c.text.replace(/\\([$`"\\\n])/g, "$1") : c.text;
      }
      return { text, dynamic: hasExpansion(node) };
    }
    case "concatenation": {
      const parts = node.namedChildren.filter((c): c is Node => c !== null).map(wordOf);
      // A bare `$` or glob piece of a concatenation has no named node: fall back to the source for those.
      const text = parts.length ? parts.map((p) => p.text).join("") : unescape(node.text);
      return { text: parts.length === node.children.length ? text : unescape(node.text), dynamic: parts.some((p) => p.dynamic) };
    }
    default:
      return { text: node.text, dynamic: hasExpansion(node) || EXPANSIONS.has(node.type) };
  }
}

// ---------------------------------------------------------------------------------------------
// the walk

interface Walk {
  pipelines: Pipeline[];
  cwd: Cwd;
  /** The pipeline commands are appended to (undefined: each command is its own pipeline). */
  pipeline?: Pipeline;
}

const REDIRECTS = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"]);
const SUBSTITUTIONS = new Set(["command_substitution", "process_substitution"]);

/** A nested context: its own `cd` stays inside (subshell, pipeline element, substitution). */
const inner = (ctx: Walk, pipeline?: Pipeline): Walk => ({ pipelines: ctx.pipelines, cwd: { ...ctx.cwd }, pipeline });

function walk(node: Node, ctx: Walk): void {
  switch (node.type) {
    case "command":
      command(node, [], ctx);
      return;
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
      const body = node.childForFieldName("body");
      if (body) walk(body, inner(ctx));
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
    push({ name: "", dynamicName: false, args: [], dynamicArgs: [], via: [], code: [], cwd: { ...ctx.cwd }, ...redirectsOf(redirects, here) }, here);
  }
  for (const a of after) {
    if (a.type === "pipeline") for (const c of a.namedChildren) c && walk(c, inner(ctx, pipeline));
    else if (a.type === "command") walk(a, inner(ctx, pipeline));
    else walk(a, ctx);
  }
}

const isWordNode = (n: Node) => ["word", "string", "raw_string", "concatenation", "simple_expansion", "expansion", "number", "ansi_c_string", "command_substitution", "process_substitution"].includes(n.type);

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

/** Wrappers that run their arguments as a command; value: options that take an argument. */
const WRAPPERS: Record<string, Set<string>> = {
  sudo: new Set(["-u", "-g", "-U", "-C", "-h", "-p", "-r", "-t", "-D", "-R", "-T"]),
  doas: new Set(["-u", "-C"]),
  env: new Set(["-u", "-C", "-S", "--unset", "--chdir"]),
  nice: new Set(["-n", "--adjustment"]),
  ionice: new Set(["-c", "-n", "-p"]),
  nohup: new Set(),
  command: new Set(),
  builtin: new Set(),
  exec: new Set(["-a"]),
  time: new Set(["-f", "-o"]),
  stdbuf: new Set(["-i", "-o", "-e"]),
  timeout: new Set(["-s", "-k", "--signal", "--kill-after"]),
  xargs: new Set(["-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "--max-args", "--delimiter"]),
  watch: new Set(["-n", "-d", "--interval"]),
  unbuffer: new Set(),
  setsid: new Set(),
  chroot: new Set(),
};

export function basename(p: string): string {
  const b = p.replace(/\/+$/, "");
  return b.slice(b.lastIndexOf("/") + 1) || p;
}

function command(node: Node, outer: Node[], ctx: Walk): void {
  const words: Word[] = [];
  const redirectNodes = [...outer];
  for (const c of node.namedChildren) {
    if (!c) continue;
    if (REDIRECTS.has(c.type)) redirectNodes.push(c);
    else if (c.type === "variable_assignment") walkSubstitutions(c, ctx);
    else if (c.type === "command_name") words.push(wordOf(c.namedChildren[0] ?? c));
    else if (isWordNode(c) || c.type === "arithmetic_expansion") words.push(wordOf(c));
  }
  for (const c of node.namedChildren) if (c && c.type !== "variable_assignment" && !REDIRECTS.has(c.type)) walkSubstitutions(c, ctx);
  const simple = normalise(words, redirectsOf(redirectNodes, ctx), ctx.cwd);
  push(simple, ctx);
  if (!ctx.pipeline || ctx.pipeline.commands.length === 1) {
    // `cd` outside a pipeline moves the rest of the sequence (a pipeline element runs in a subshell).
    if (/^(?:cd|pushd)$/.test(simple.name) && !simple.dynamicName) ctx.cwd = cdTarget(ctx.cwd, simple);
    else if (simple.name === "popd") ctx.cwd = { at: "unknown" };
  }
}

function normalise(words: Word[], redirects: Pick<SimpleCommand, "redirects" | "stdinText" | "stdinDynamic">, cwd: Cwd): SimpleCommand {
  const via: string[] = [];
  let k = 0;
  for (;;) {
    const w = words[k];
    if (w === undefined || w.dynamic) break;
    if (/^(?:!|time|coproc)$/.test(w.text) || /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/.test(w.text)) {
      k++;
      continue;
    }
    const wrapper = basename(w.text);
    const opts = WRAPPERS[wrapper];
    if (!opts) break;
    via.push(wrapper);
    k++;
    while (k < words.length) {
      const a = words[k]!.text;
      if (a === "--") {
        k++;
        break;
      }
      if (wrapper === "env" && /^[A-Za-z_]\w*=/.test(a)) k++;
      else if (isFlag(a)) k += opts.has(a) ? 2 : 1;
      else break;
    }
    if (wrapper === "timeout" && k < words.length) k++; // the duration
    if (wrapper === "chroot" && k < words.length) k++; // the new root
  }
  const first = words[k];
  const name = first === undefined ? "" : basename(first.text);
  const rest = words.slice(k + 1);
  const args = rest.map((w) => w.text);
  const simple: SimpleCommand = { name, dynamicName: first?.dynamic ?? false, args, dynamicArgs: rest.map((w) => w.dynamic), via, code: [], ...redirects, cwd: { ...cwd } };
  simple.code = literalCode(simple);
  return simple;
}

/** The literal code a command runs besides itself (the audit parses and audits it like the command line). */
function literalCode(c: SimpleCommand): string[] {
  const { name, args } = c;
  const code: string[] = [];
  if ((SHELLS.test(name) && !INTERPRETERS.test(name)) || name === "su") {
    const ci = args.findIndex((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a) || a === "--command");
    if (ci >= 0 && args[ci + 1] !== undefined && !c.dynamicArgs[ci + 1]) code.push(args[ci + 1]!);
    if (ci < 0 && c.stdinText !== undefined && !c.stdinDynamic) code.push(c.stdinText);
  }
  if (name === "eval" && !c.dynamicArgs.some(Boolean)) code.push(args.join(" "));
  if (name === "find") {
    for (let j = 0; j < args.length; j++) {
      if (!/^-(?:exec|execdir|ok|okdir)$/.test(args[j]!)) continue;
      const end = args.findIndex((a, n) => n > j && (a === ";" || a === "+"));
      // Each word quoted back as the single word find passes on; `{}` stands for a matched path below here.
      code.push(args.slice(j + 1, end < 0 ? undefined : end).map((a) => (a === "{}" ? "./x" : `'${a.replace(/'/g, "'\\''")}'`)).join(" "));
    }
  }
  return code;
}

const WORKSPACE = `${VIRTUAL_ROOT}/workspace`;

/** Where `cd <operand>` from `cwd` leads. */
function cdTarget(cwd: Cwd, c: SimpleCommand): Cwd {
  const i = c.args.findIndex((a) => !/^-[LPe@]+$/.test(a));
  if (i < 0) return { at: "home" };
  const dir = c.args[i]!;
  if (c.dynamicArgs[i]) return /^\$\{?HOME\}?\/?$/.test(dir) ? { at: "home" } : { at: "unknown" };
  if (dir === "-") return { at: "unknown" };
  if (/^~\/*$/.test(dir)) return { at: "home" };
  if (dir.startsWith("~")) return { at: "outside" };
  if (dir.startsWith("/")) {
    const norm = dir.replace(/\/+/g, "/").replace(/\/\.(?=\/|$)/g, "").replace(/\/$/, "");
    if (norm === "" || /^(?:\/\.\.)+$/.test(norm)) return { at: "root" };
    if (norm === WORKSPACE || norm.startsWith(`${WORKSPACE}/`)) return walkDown({ at: "workspace", depth: 0 }, norm.slice(WORKSPACE.length));
    return { at: "outside" };
  }
  return walkDown(cwd, dir);
}

function walkDown(from: Cwd, rel: string): Cwd {
  let at: Cwd = { ...from };
  for (const seg of rel.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (at.at === "workspace") at = seg === ".." ? (at.depth === 0 ? { at: "outside" } : { at: "workspace", depth: at.depth - 1 }) : { at: "workspace", depth: at.depth + 1 };
    else if (at.at === "root") at = seg === ".." ? at : { at: "outside" };
    else if (at.at === "home") at = { at: "outside" };
  }
  return at;
}
