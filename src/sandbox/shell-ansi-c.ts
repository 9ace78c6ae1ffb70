// Bash's `$'…'` words decoded as bash decodes them, so the audit (shell-grammar.ts) judges what bash will run.

const C_ESCAPES: Record<string, string> = { a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\", "'": "'", '"': '"', "?": "?" };

/** The text of a `$'…'` word as bash makes it: \xHH, \uHHHH, \UHHHHHHHH, octal \nnn, \cX and the C escapes. */
export function decodeAnsiC(body: string): string {
  const text = body.replace(/\\(x\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (all, e: string) => {
    // bash 5.2's `\x{H…}` is a byte: the value's low eight bits (the tenth pass: `$'\x{2d}exec'` is `-exec`).
    if (e.startsWith("x{")) return String.fromCharCode(Number.parseInt(e.slice(2, -1).slice(-8), 16) & 0xff);
    const hex = /^[xuU]/.test(e) ? Number.parseInt(e.slice(1), 16) : undefined;
    if (hex !== undefined) return hex <= 0x10ffff ? String.fromCodePoint(hex) : all;
    if (/^[0-7]/.test(e)) return String.fromCharCode(Number.parseInt(e, 8) & 0xff);
    if (e[0] === "c") return String.fromCharCode(e.charCodeAt(1) & 0x1f);
    return C_ESCAPES[e] ?? all;
  });
  // bash ends the word at the first NUL it decodes (`$'-exec\0'` is `-exec`: the ninth pass).
  const nul = text.indexOf("\0");
  return nul >= 0 ? text.slice(0, nul) : text;
}
