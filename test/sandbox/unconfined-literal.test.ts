// The plain-words gate for commands without a sandbox (unconfined-literal.ts): a line bash reads exactly as written
// passes; every spelling the tenth adversarial pass used to make bash read something else is named.
import { describe, expect, it } from "vitest";
import { notLiteral } from "../../src/sandbox/unconfined-literal.js";

describe("notLiteral", () => {
  it.each([
    "ls -la",
    "grep -rn 'TODO: $x `y` {a,b} *' src",
    'cat "README.md" "a b.txt"',
    "cd src && ls || true",
    "pwd; uname -a\nid",
    "ls 2>/dev/null",
    "rg foo 2>&1 | head -5",
    "echo done >&2",
    "ls &>/dev/null",
    "tail -n +3 a.txt",
    "cut -d: -f1,3 a",
    "ls --color=never",
    "grep -rn 'wait for it' src",
  ])("passes %j", (cmd) => {
    expect(notLiteral(cmd)).toBeUndefined();
  });

  it.each([
    ["cat $'a\\x{2f}b'", "`$` (an expansion)"],
    ['find . $"-foo"', "`$` (an expansion)"],
    ["echo $HOME", "`$` (an expansion)"],
    ['echo "${x:-`id`}"', "`$` (an expansion) inside double quotes"],
    ['echo "`id`"', "a backquote inside double quotes"],
    ["echo `id`", "a backquote"],
    ["cat {\\.\\.,x}/n", "a brace"],
    ["find . {'-exec',sh} x", "a brace"],
    ["rg -n TODO *", "a glob"],
    ["find . -e[x]ec sh p.sh", "a glob or test"],
    ["ls ?", "a glob"],
    ["[[ a -eq 1 ]]", "`[[` (a compound command or loop)"],
    ["(( x ))", "a subshell"],
    ["cat ~/.ssh/id_rsa", "a tilde"],
    ["cat <<E\nx\nE", "a redirection"],
    ["echo x > f", "a redirection"],
    ["ls 2>/tmp/x", "a redirection"],
    ["sleep 9 &", "`&`"],
    ["cat a\\ b", "a backslash"],
    ["echo 'unclosed", "an unclosed quote"],
    ["ls #x", "`#`"],
    // the eleventh pass: a loop's variable is an assignment no simple command shows
    ["for PATH in tools; do ls; done", "`for` (a compound command or loop)"],
    ["for CDPATH in ..; do cd .someapp && cat token; done", "`for` (a compound command or loop)"],
    ["ls; if true; then ls; fi", "`if` (a compound command or loop)"],
  ])("names %j", (cmd, what) => {
    expect(notLiteral(cmd)).toBe(what);
  });
});
