// .deerflowrc is JSON that may carry // and /* */ comments, so the example file can document every key in place.
// Read and edited with Microsoft's jsonc-parser (VS Code's): parse errors say where, and an edit (the model picker's
// choice) changes only the keys it sets, so the user's comments and layout stay.
import { type ParseError, applyEdits, modify, parse, printParseErrorCode } from "jsonc-parser";

/** Parses JSON with comments (no trailing commas, as JSON); throws one line "line 3, column 9: …" on an error. */
export function parseJsonc(text: string): unknown {
  if (text.trim() === "") return {};
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: false, disallowComments: false });
  const first = errors[0];
  if (first) {
    const before = text.slice(0, first.offset).split("\n");
    throw new SyntaxError(`${printParseErrorCode(first.error)} at line ${before.length}, column ${before.at(-1)!.length + 1}`);
  }
  return value;
}

/**
 * `text` with each [key path, value] set (added or replaced), comments and formatting of the rest kept. A new key goes
 * first in its object: appended last, it would land before a comment that ends the previous last line.
 */
export function editJsonc(text: string, edits: readonly [path: (string | number)[], value: unknown][]): string {
  let out = text.trim() === "" ? "{}\n" : text;
  const options = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" }, getInsertionIndex: () => 0 };
  for (const [path, value] of edits) out = applyEdits(out, modify(out, path, value, options));
  return out.endsWith("\n") ? out : `${out}\n`;
}
