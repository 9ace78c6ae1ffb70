// The project files a stdio MCP server's line makes a program run, as the program itself resolves them: `node srv`
// runs srv.js, `node ./tools` runs tools/index.js (or its package.json's main), `python3 pkg` runs pkg/__main__.py,
// `python3 -m srv` finds srv.py in the cwd, and a name can sit inside a word (`sh -c "node x.js"`,
// `NODE_OPTIONS=--require=./pre`, `--require=./x`). The twenty-fourth pass (A24-10) rewrote each of these inside the
// sandbox and the next start ran it on the host: only the exact words that named a file were covered. What those
// files load in turn is not resolved (a stated limit, docs/security.md).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, extname, join, resolve } from "node:path";

/** What Node and Python add to a name they are given (node: .js/.mjs/.cjs/.json/.node; tsx/ts-node: .ts). */
const EXTENSIONS = [".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".json", ".node", ".py", ".sh", ".pm", ".pl", ".rb"];
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

/**
 * The parts of a word that can name a path: split on shell quoting, separators, `=` and `:` (PATH-like values); and
 * the same with the quotes and backslashes a shell removes taken out first, so `tools/init.s''h` and `tools/ini\t.sh`
 * name tools/init.sh as the shell makes them (the thirty-eighth pass's A38a-5). An option glued to its value
 * (`-Itools`, `-Minit`, `-rinit`: perl's and ruby's include folder and module) gives its value.
 */
export function pathTokens(word: string): string[] {
  const split = (w: string) => w.split(/[\s"'`;|&()<>=:,]+/).filter((t) => t !== "" && !t.includes("$"));
  const glued = (t: string) => (/^-[A-Za-z][^-]/.test(t) ? [t.slice(2)] : t.startsWith("-") ? [] : [t]);
  const asShell = word.replace(/\\(.)/g, "$1").replace(/''|""/g, "").replace(/::/g, "/"); // perl's Foo::Bar is Foo/Bar.pm
  return [...new Set([...split(word), ...split(asShell)].flatMap(glued))];
}

/** A token's last part as a pattern when it holds glob characters (`tools/ini?.sh`, `*.py`), else undefined. */
function globOf(token: string): RegExp | undefined {
  const last = basename(token);
  if (!/[*?[]/.test(last)) return undefined;
  const body = last
    .replace(/[.+^${}()|\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}

/** What a globbed token names in its folder (only the last part may hold glob characters). */
function globMatches(path: string): string[] {
  const re = globOf(path);
  if (!re || /[*?[]/.test(dirname(path))) return [];
  try {
    return readdirSync(dirname(path))
      .filter((n) => re.test(n))
      .map((n) => join(dirname(path), n));
  } catch {
    return [];
  }
}

/** A dotted or `::` name (`tools.init` after `import`, perl's `Foo::Bar`) as the module paths a program looks up. */
function dottedModules(token: string): string[] {
  if (!/^[A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)+$/.test(token)) return [];
  const parts = token.split(/\.|::/);
  return parts.map((_, k) => parts.slice(0, k + 1).join("/"));
}

/** A package.json's `main` (and `bin`) files, resolved like the name itself: a folder `main` by its own entries
 *  (`"main": "lib"` runs lib/index.js: the thirtieth pass's A30b-3), one level. */
function manifestEntries(dir: string, depth: number): string[] {
  try {
    const json = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { main?: unknown; bin?: unknown; exports?: unknown };
    const named = [json.main, ...(typeof json.bin === "string" ? [json.bin] : Object.values((json.bin as object) ?? {}))];
    if (typeof json.exports === "string") named.push(json.exports);
    return named.filter((n): n is string => typeof n === "string").flatMap((n) => fileCandidates(resolve(dir, n), depth));
  } catch {
    return [];
  }
}

/** The files a name resolves to: itself, itself with an extension, or a folder's entry files (two levels of manifests). */
function fileCandidates(p: string, depth = 0): string[] {
  const out: string[] = [];
  const kind = kindOf(p);
  if (kind === "file") out.push(p);
  for (const e of EXTENSIONS) if (kindOf(p + e) === "file") out.push(p + e);
  if (kind === "dir" && depth < 2) {
    for (const n of FOLDER_ENTRIES) if (kindOf(join(p, n)) === "file") out.push(join(p, n));
    out.push(...manifestEntries(p, depth + 1));
  }
  return out;
}

/**
 * The files an interpreter may run in place of `file`: Python imports `srv.cpython-311-x86_64-linux-gnu.so` before
 * srv.py and runs `__pycache__/srv.cpython-311.pyc` when its header matches srv.py's size and time (a sandboxed command
 * forged one: the twenty-fifth pass's A25-7), so every `srv.*` beside it and in `__pycache__` counts too — and one
 * planted later changes the list.
 */
function companions(file: string): string[] {
  const stem = basename(file, extname(file));
  const dir = dirname(file);
  const named = (d: string) => {
    try {
      return readdirSync(d)
        .filter((n) => n.startsWith(`${stem}.`))
        .map((n) => join(d, n));
    } catch {
      return [];
    }
  };
  return [...named(dir), ...named(join(dir, "__pycache__"))].filter((f) => kindOf(f) === "file");
}

/** `python3 -m a.b.c`: every package on the way runs its __init__ (a, a/b), then a/b/c. */
function moduleTokens(words: string[]): string[] {
  const out: string[] = [];
  words.forEach((w, i) => {
    const next = words[i + 1];
    if (w !== "-m" || !next || !/^[\w.]+$/.test(next)) return;
    const parts = next.split(".");
    parts.forEach((_, k) => out.push(parts.slice(0, k + 1).join("/")));
  });
  return out;
}

/**
 * A word with what a shell would put for the cwd and the home spelled out (`node "$PWD/srv.js"`, `$(pwd)/x`,
 * `${HOME}/project/tools`): A29b-2, A30b-6. Other variables stay, and a word holding one is not followed.
 */
export function withKnownVars(word: string, base: string): string {
  const home = process.env.HOME ?? homedir();
  return word
    .replace(/\$\{PWD\}|\$PWD\b|\$\(pwd\)|`pwd`/g, base)
    .replace(/\$\{HOME\}|\$HOME\b/g, home)
    .replace(/^~(?=\/|$)/, home);
}
const withCwd = (words: string[], base: string) => words.map((w) => withKnownVars(w, base));

/**
 * A virtualenv's python (`.venv/bin/python`) imports from its own site-packages and runs every `*.pth` file there at
 * start-up, whatever the server is (the twenty-ninth pass's A29b-3 rewrote both and the next start ran them): for each
 * word that is a venv's program, its site-packages folders (searched for `-m` modules) and the files it runs by itself
 * there (`*.pth`, `sitecustomize.py`, `usercustomize.py`, and `pyvenv.cfg`, which picks the interpreter).
 */
function venvParts(paths: string[]): { dirs: string[]; files: string[] } {
  const dirs: string[] = [];
  const files: string[] = [];
  for (const p of paths) {
    const venv = dirname(dirname(p));
    if (basename(dirname(p)) !== "bin" || kindOf(join(venv, "pyvenv.cfg")) !== "file") continue;
    files.push(join(venv, "pyvenv.cfg"));
    for (const lib of ["lib", "lib64"]) {
      let versions: string[] = [];
      try {
        versions = readdirSync(join(venv, lib)).filter((n) => n.startsWith("python"));
      } catch {
        continue;
      }
      for (const v of versions) {
        const site = join(venv, lib, v, "site-packages");
        dirs.push(site);
        try {
          for (const n of readdirSync(site)) if (n.endsWith(".pth") || /^(?:site|user)customize\.py$/.test(n)) files.push(join(site, n));
        } catch {
          // no site-packages
        }
      }
    }
  }
  return { dirs, files };
}

/**
 * Every project file the words of a server (command, arguments, env values) resolve to, read against `base` and
 * against each project folder a word names (`sh -c "cd tools && exec node srv.js"` ran a rewritten tools/srv.js: the
 * twenty-ninth pass's A29b-2); a module (`-m srv`) is also looked up in each of `searchDirs` (the server's PYTHONPATH:
 * `-m srv` with `PYTHONPATH=lib` ran lib/srv.py unwatched, the twenty-seventh pass's A27-11) and a venv's site-packages.
 */
export function entryFiles(base: string, words: string[], inProject: (p: string) => boolean, searchDirs: string[] = []): string[] {
  const out = new Set<string>();
  const tokens = withCwd(words, base).flatMap(pathTokens);
  const folders = [base, ...tokens.map((t) => resolve(base, t)).filter((p) => inProject(p) && kindOf(p) === "dir")];
  const resolved = [...new Set(tokens.flatMap((t) => folders.map((f) => resolve(f, t))))];
  // A glob names every file it matches (`. tools/ini?.sh`), as the shell expands it.
  const named = [...resolved, ...resolved.flatMap(globMatches)].filter(inProject);
  const venv = venvParts(named);
  for (const f of venv.files) if (inProject(f)) out.add(f);
  // `-m a.b`, and a dotted name in code (`import tools.init`, `import_module('tools.init')`, perl's `-MFoo::Bar`)
  const moduleNames = [...moduleTokens(words), ...tokens.flatMap(dottedModules)];
  const modules = moduleNames.flatMap((t) => [...folders, ...searchDirs, ...venv.dirs].map((d) => resolve(base, d, t)));
  for (const p of [...named, ...modules]) {
    if (!inProject(p)) continue;
    for (const f of fileCandidates(p)) for (const g of [f, ...companions(f)]) if (inProject(g)) out.add(g);
  }
  return [...out];
}

/** The folders of a PATH-like env value (`lib:vendor/py`) as absolute paths from `base`; computed ones are skipped. */
export function searchDirs(value: unknown, base: string): string[] {
  if (typeof value !== "string") return [];
  return value
    .split(":")
    .filter((d) => d !== "" && !d.includes("$"))
    .map((d) => resolve(base, d));
}

/**
 * The server's environment with what node's `--env-file=<f>` (or `--env-file-if-exists`) sets from a project file
 * under it: NODE_OPTIONS there preloaded a file no word of the server named (the forty-first pass's A41a-2). The
 * server's own `env` wins, as in node. A file outside the project is the user's, not read.
 */
export function withEnvFiles(base: string, words: string[], env: Record<string, unknown>, inProject: (p: string) => boolean): Record<string, unknown> {
  const fromFiles: Record<string, string> = {};
  words.forEach((w, i) => {
    const m = /^--env-file(?:-if-exists)?(?:=(.*))?$/.exec(w);
    const name = m ? (m[1] ?? words[i + 1]) : undefined;
    if (!name || name.includes("$")) return;
    const file = resolve(base, withKnownVars(name, base));
    if (!inProject(file) || kindOf(file) !== "file") return;
    let text = "";
    try {
      text = readFileSync(file, "utf8").slice(0, 1024 * 1024);
    } catch {
      return;
    }
    for (const line of text.split(/\r?\n/)) {
      const kv = /^\s*(?:export\s+)?([\w.-]+)\s*=\s*(.*)$/.exec(line);
      if (kv) fromFiles[kv[1]!] = kv[2]!.replace(/^(["'`])(.*)\1\s*(?:#.*)?$/, "$2");
    }
  });
  return { ...fromFiles, ...env };
}

/** Options that make node load a module before the program (`-r dotenv/config`, `--import tsx`), in any word. */
const PRELOAD = /^(?:-r|--require|--import|--loader|--experimental-loader)$/;

/**
 * The packages node preloads by a bare name (`node -r dotenv/config`, `--import tsx`, NODE_OPTIONS too): resolved in
 * the project's node_modules, so the project's copy runs on the host (the twenty-fifth pass's A25-11). Package names
 * only (`@scope/name`, `name`); the caller covers their whole copy.
 */
export function preloadedPackages(words: string[]): string[] {
  const tokens = words.flatMap((w) => w.split(/[\s"'`;|&()]+/)).filter(Boolean);
  const out = new Set<string>();
  tokens.forEach((t, i) => {
    const eq = /^(--[\w-]+)=(.+)$/.exec(t);
    const spec = eq && PRELOAD.test(eq[1]!) ? eq[2]! : PRELOAD.test(t) ? tokens[i + 1] : undefined;
    if (!spec || /^[./~$]|^[a-z]+:/i.test(spec)) return;
    const name = /^(@[^/]+\/[^/]+|[^/]+)/.exec(spec)?.[1];
    if (name && !name.includes("..")) out.add(name);
  });
  return [...out];
}
