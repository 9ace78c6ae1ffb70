// The project files a stdio MCP server's line makes a program run, as the program itself resolves them: `node srv`
// runs srv.js, `node ./tools` runs tools/index.js (or its package.json's main), `python3 pkg` runs pkg/__main__.py,
// `python3 -m srv` finds srv.py in the cwd, and a name can sit inside a word (`sh -c "node x.js"`,
// `NODE_OPTIONS=--require=./pre`, `--require=./x`). The twenty-fourth pass (A24-10) rewrote each of these inside the
// sandbox and the next start ran it on the host: only the exact words that named a file were covered. What those
// files load in turn is not resolved (a stated limit, docs/security.md).
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

/** What Node and Python add to a name they are given (node: .js/.mjs/.cjs/.json/.node; tsx/ts-node: .ts). */
const EXTENSIONS = [".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".json", ".node", ".py", ".sh"];
/** What a folder given to node, python or a package runner runs. */
const FOLDER_ENTRIES = ["package.json", ...EXTENSIONS.map((e) => `index${e}`), "__main__.py", "__init__.py"];

const kindOf = (p: string): "file" | "dir" | undefined => {
  try {
    const st = statSync(p);
    return st.isFile() ? "file" : st.isDirectory() ? "dir" : undefined;
  } catch {
    return undefined;
  }
};

/** The parts of a word that can name a path: split on shell quoting, separators, `=` and `:` (PATH-like values). */
export function pathTokens(word: string): string[] {
  return word.split(/[\s"'`;|&()<>=:,]+/).filter((t) => t !== "" && !t.includes("$") && !t.startsWith("-"));
}

/** A package.json's `main` (and `bin`) files, resolved like the name itself. */
function manifestEntries(dir: string): string[] {
  try {
    const json = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { main?: unknown; bin?: unknown; exports?: unknown };
    const named = [json.main, ...(typeof json.bin === "string" ? [json.bin] : Object.values((json.bin as object) ?? {}))];
    if (typeof json.exports === "string") named.push(json.exports);
    return named.filter((n): n is string => typeof n === "string").flatMap((n) => fileCandidates(resolve(dir, n), false));
  } catch {
    return [];
  }
}

/** The files a name resolves to: itself, itself with an extension, or a folder's entry files (one level). */
function fileCandidates(p: string, intoFolder = true): string[] {
  const out: string[] = [];
  const kind = kindOf(p);
  if (kind === "file") out.push(p);
  for (const e of EXTENSIONS) if (kindOf(p + e) === "file") out.push(p + e);
  if (kind === "dir" && intoFolder) {
    for (const n of FOLDER_ENTRIES) if (kindOf(join(p, n)) === "file") out.push(join(p, n));
    out.push(...manifestEntries(p));
  }
  return out;
}

/** Every project file the words of a server (command, arguments, env values) resolve to, read against `base`. */
export function entryFiles(base: string, words: string[], inProject: (p: string) => boolean): string[] {
  const out = new Set<string>();
  const tokens = words.flatMap(pathTokens);
  // `python3 -m a.b` runs a/b.py (or the package a/b) from the cwd.
  words.forEach((w, i) => {
    const next = words[i + 1];
    if (w === "-m" && next && /^[\w.]+$/.test(next)) tokens.push(next.replaceAll(".", "/"));
  });
  for (const t of tokens) {
    const p = resolve(base, t);
    if (!inProject(p)) continue;
    for (const f of fileCandidates(p)) if (inProject(f)) out.add(f);
  }
  return [...out];
}
