// Arithmetic that reads variables the audit cannot vouch for. Bash evaluates a variable's value inside arithmetic
// (`$((x))`, `((x))`, `let`, an array subscript `a[x]`, `[[ x -eq 1 ]]`) as an expression, and an expression may
// index an array with a command substitution: with `x='a[$(rm -rf ~)]'`, `echo $((x))` runs `rm -rf ~`. So
// arithmetic on a variable asks unless the same command line gave it a plain value (a number, a plain word, an
// arithmetic result, a `for` over such words), which keeps `for i in 1 2 3; do echo $((i+1)); done` and
// `n=0; n=$((n+1))` allowed. Values planted earlier with code in them ask where they are assigned (shell-audit.ts).
import type { Node } from "web-tree-sitter";

/** Variables bash itself keeps numeric. */
const NUMERIC_SPECIALS = new Set(["RANDOM", "SRANDOM", "SECONDS", "LINENO", "EPOCHSECONDS", "BASHPID", "PPID", "UID", "EUID", "OPTIND", "COLUMNS", "LINES", "SHLVL"]);
const IDENT = /(?<![\w#@])[A-Za-z_]\w*/g;
const TEST_ARITH = /^-(?:eq|ne|lt|le|gt|ge)$/;
const SUBSTITUTION = new Set(["command_substitution", "process_substitution"]);

const COUNTS = [
  /^\$\(\s*seq(?:\s+-?[\d.]+){1,3}\s*\)$/,
  /^\$\((?:[^()`]*\|)?\s*wc\s+-[lcmw]\s*(?:<\s*[^\s()`;|&<>]+\s*)?\)$/,
  /^\$\(\s*grep\s+(?:-(?![a-zA-Z]*[HrR])[a-zA-Z]*c[a-zA-Z]*\s+)(?:-(?![a-zA-Z]*[HrR])\w+\s+)*(?:'[^']*'|"[^"$`]*"|[^\s'"$`()]+)(?:\s+[^\s'"$`()|;&<>*?[]+)?\s*\)$/,
];
const children = (n: Node) => n.namedChildren.filter((c): c is Node => c !== null);

/** A value that bash cannot turn into code when it evaluates it: a number, a plain word, an arithmetic result. */
function plainValue(n: Node | null): boolean {
  if (!n) return true;
  if (n.type === "number" || n.type === "arithmetic_expansion") return true;
  if (n.type === "array" || n.type === "brace_expression") return children(n).every(plainValue);
  if (n.type === "word" || n.type === "raw_string") return !/[[$`\\]/.test(n.text);
  if (n.type === "string") return children(n).every((c) => c.type === "string_content" && !/[[$`\\]/.test(c.text));
  // Substitutions that print a number: `$(seq 1 10)`, `$(… | wc -l)`, `$(wc -l < f)`, `$(grep -c re f)` (one file: no name).
  if (n.type === "command_substitution") return COUNTS.some((re) => re.test(n.text));
  return false;
}

/**
 * The variable names an arithmetic context reads. A nested `$(…)` is a command of its own, but its OUTPUT is read
 * as an expression too (the seventh pass: `$(( $(printf 'a[$(…)]') ))` ran the hidden command): unless it prints a
 * count, it counts as an unknown value (`$(…)` in `into`).
 */
function readNames(n: Node, into: Set<string>): void {
  if (SUBSTITUTION.has(n.type)) {
    if (!plainValue(n)) into.add("$(…)");
    return;
  }
  if (n.type === "variable_name") into.add(n.text);
  else if (n.type === "word" || n.type === "string_content" || n.type === "raw_string") for (const m of n.text.matchAll(IDENT)) into.add(m[0]);
  for (const c of children(n)) readNames(c, into);
}

/** Arithmetic in the command line reads a variable whose value the line did not set plainly. */
export function arithmeticReadsUnknown(root: Node): boolean {
  const plain = new Set<string>();
  const read = new Set<string>();
  let associative = false;
  const visit = (n: Node): void => {
    switch (n.type) {
      case "variable_assignment": {
        const name = n.childForFieldName("name");
        if (name?.type === "variable_name" && plainValue(n.childForFieldName("value"))) plain.add(name.text);
        break;
      }
      case "for_statement": {
        const v = n.childForFieldName("variable");
        const values = n.childrenForFieldName("value").filter((c): c is Node => c !== null);
        if (v && values.every(plainValue)) plain.add(v.text);
        break;
      }
      case "declaration_command":
        if (children(n).some((c) => c.type === "word" && /^-[a-zA-Z]*A/.test(c.text))) associative = true;
        break;
      case "arithmetic_expansion":
        readNames(n, read);
        break;
      case "c_style_for_statement":
        for (const f of ["initializer", "condition", "update"]) for (const c of n.childrenForFieldName(f)) if (c) readNames(c, read);
        break;
      case "compound_statement":
        if (n.children[0]?.text === "((") readNames(n, read);
        break;
      case "subscript": {
        const index = n.childForFieldName("index");
        if (index && !associative) readNames(index, read);
        break;
      }
      case "command": {
        const name = n.childForFieldName("name")?.text;
        const args = n.childrenForFieldName("argument").filter((a): a is Node => a !== null);
        if (name === "let") for (const a of args) readNames(a, read);
        // `test -v x` / `[ -v x ]` evaluate x's subscript like `[[ -v x ]]` (the eighth pass).
        if ((name === "test" || name === "[") && args.some((a) => a.text === "-v")) for (const a of args) readNames(a, read);
        break;
      }
      case "array":
        // `a=([$x]=1)`: the subscript of an element assignment is arithmetic.
        for (const c of children(n)) if (c.text.startsWith("[")) readNames(c, read);
        break;
      case "binary_expression":
        if (n.parent?.type === "test_command" && children(n).some((c) => c.type === "test_operator" && TEST_ARITH.test(c.text))) readNames(n, read);
        break;
      case "unary_expression":
        // `[[ -v x ]]` evaluates x's subscript when x names an array element.
        if (children(n).some((c) => c.type === "test_operator" && c.text === "-v")) readNames(n, read);
        break;
      case "expansion": {
        // `${!x}` (indirection) and `${x@P}` (prompt expansion) evaluate what x holds.
        if (/^\$\{!|@P\}$/.test(n.text)) for (const m of n.text.matchAll(IDENT)) if (m[0] !== "P") read.add(m[0]);
        // `${x:offset:length}`: offset and length are arithmetic (`${PWD:$(printf 'a[$(…)]')}`, the eighth pass).
        const colon = n.children.findIndex((c) => c?.type === ":");
        const next = colon >= 0 ? n.children[colon + 1] : undefined;
        if (colon >= 0 && !(next && /^[-=?+]/.test(next.text))) for (const c of n.children.slice(colon + 1)) if (c) readNames(c, read);
        break;
      }
    }
    for (const c of children(n)) visit(c);
  };
  visit(root);
  return read.has("$(…)") || [...read].some((name) => /^[A-Za-z_]\w*$/.test(name) && !plain.has(name) && !NUMERIC_SPECIALS.has(name));
}
