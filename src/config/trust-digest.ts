// What trusting a project folder is bound to: the .deerflowrc's bytes and, since a stdio MCP server of a trusted file
// runs on the host, the content of every project file its command, arguments or env values make run (`node
// tools/srv.js`, `node srv`, `node ./tools`, `python3 -m srv`, `NODE_OPTIONS=--require=./pre`: server-entry-files.ts).
// A sandboxed command could rewrite such a file and have it run on the host at the next start (the eighteenth pass's
// MC1, the twenty-fourth's A24-10): now that change makes the folder "changed since you trusted it", asked again. A
// file that cannot be read whole counts as changed every time (fail closed). A package runner (`npx`, `bunx`, `pnpm
// dlx`…) runs the project's own copy of the package when node_modules holds one (npm exec looks there first): that
// copy (its files, nested dependencies included) and the node_modules/.bin entries of its bins are covered too, and
// so is its absence (a planted one is a change). Not covered: what those files load in turn (the trust question
// says so, mcp-server-wants.ts). Confined servers (`"sandbox": true`) too: they run in bubblewrap, but with the
// secrets their `env` gives them and a network, so a rewritten one sent the token out (the fortieth pass's A40a-5).
import { createHash, randomBytes } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { entryFiles, preloadedPackages, searchDirs, withEnvFiles, withKnownVars } from "./server-entry-files.js";

const sha256Of = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");

/** Larger server files are not read: they count as changed (a server script is far smaller). */
const MAX_SERVER_FILE = 32 * 1024 * 1024;

const inside = (folder: string, p: string) => {
  const r = relative(folder, p);
  return r !== "" && !r.startsWith("..") && !isAbsolute(r);
};

/** Where a server starts: its `cwd` against the file's folder, `$HOME`/`$PWD` spelled out (`"cwd": "${HOME}/p/tools"`
 *  ran tools/srv.js unwatched: A30b-6); the folder itself when the cwd holds another variable. */
function serverCwd(folder: string, cwd: unknown): string {
  const spelled = typeof cwd === "string" ? withKnownVars(cwd, folder) : undefined;
  return spelled !== undefined && !spelled.includes("$") ? resolve(folder, spelled) : folder;
}

/** A server's env, with what its `--env-file` sets from the project (server-entry-files.ts). */
const serverEnv = (folder: string, base: string, words: string[], env: unknown) =>
  withEnvFiles(base, words, env && typeof env === "object" ? (env as Record<string, unknown>) : {}, (p) => inside(folder, p));

/** Programs that run a project folder given to them (`node .` runs the project's package.json main). */
const INTERPRETER = /^(?:node|nodejs|bun|deno|tsx|ts-node|python[\d.]*)$/;

/** The project files a stdio server's command, arguments and env values make run (server-entry-files.ts), read
 * against its cwd, else the file's folder. */
export function serverFiles(rcPath: string, config: unknown): string[] {
  const folder = dirname(resolve(rcPath));
  const servers = (config as { mcpServers?: unknown } | null)?.mcpServers;
  if (!servers || typeof servers !== "object") return [];
  const out = new Set<string>();
  for (const s of Object.values(servers as Record<string, Record<string, unknown>>)) {
    if (!s || typeof s.command !== "string") continue;
    const base = serverCwd(folder, s.cwd);
    const line = [s.command, ...(Array.isArray(s.args) ? s.args : [])].filter((w): w is string => typeof w === "string");
    const env = serverEnv(folder, base, line, s.env);
    const words = [...line, ...Object.values(env)].filter((w): w is string => typeof w === "string");
    // A PATH of the server's own that reaches into the project (`"PATH": "bin:/usr/bin"`) picks its program there.
    if (typeof env.PATH === "string" && !s.command.includes("/")) for (const dir of env.PATH.split(delimiter)) if (dir && !dir.includes("$")) words.push(join(dir, s.command));
    const rootRuns = INTERPRETER.test(s.command.split("/").pop() ?? "");
    for (const f of entryFiles(base, words, (p) => inside(folder, p) || (rootRuns && p === folder), searchDirs(env.PYTHONPATH, base))) out.add(f);
  }
  return [...out].sort();
}

const RUNNERS = /^(?:npx|bunx|pnpx)$/;
/** More than this many files in a package counts as changed (MCP server packages hold a few hundred). */
const MAX_PACKAGE_FILES = 5_000;

/**
 * The packages a runner line runs (`npx -y @scope/pkg@1.2 .` → `@scope/pkg`): the first operand, and each
 * `--package`/`-p` value (`npx --package=@foo/srv srv-bin` ran the package's copy, not `srv-bin`'s: the thirtieth
 * pass's A30b-5); `npm exec` also as `npm x`, options before it or not.
 */
function runnerSpecs(words: string[]): string[] {
  const [cmd, ...rest] = words;
  if (cmd === undefined) return [];
  const sub = rest.findIndex((a) => !a.startsWith("-"));
  let args = rest;
  if (/^(?:pnpm|yarn)$/.test(cmd) && rest[sub] === "dlx") args = rest.slice(sub + 1);
  else if (cmd === "npm" && /^(?:exec|x)$/.test(rest[sub] ?? "")) args = rest.slice(sub + 1);
  else if (!RUNNERS.test(cmd.split("/").pop() ?? "")) return [];
  const specs: string[] = [];
  let operand: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = /^--package=(.+)$/.exec(a);
    if (eq) specs.push(eq[1]!);
    else if (a === "--package" || a === "-p") specs.push(args[++i] ?? "");
    else if (!a.startsWith("-") && operand === undefined) operand = a;
  }
  return [...specs, ...(operand === undefined ? [] : [operand])].filter(Boolean).map((spec) => spec.replace(/^(@[^/@]+\/[^@]+|[^@]+)@.*$/, "$1"));
}

/** Every file and link under `dir` (links by their target, never followed), or undefined past the bound. */
function treeDigest(dir: string): string {
  const entries: string[] = [];
  const walk = (d: string): boolean => {
    for (const n of readdirSafe(d)) {
      const p = join(d, n);
      const st = lstatSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (entries.length > MAX_PACKAGE_FILES) return false;
      if (st.isSymbolicLink()) entries.push(`${p}\0link\0${readlinkSync(p)}`);
      else if (st.isDirectory()) {
        if (!walk(p)) return false;
      } else entries.push(`${p}\0${fileDigest(p)}`);
    }
    return true;
  };
  if (!walk(dir)) return randomBytes(16).toString("hex");
  return sha256Of(entries.join("\0"));
}

/** The project's copy of each package a server runs — through a runner (`npx pkg`) or preloaded by node (`-r
 *  dotenv/config`, `--import tsx`: A25-11) — and its bins' node_modules/.bin entries; a missing copy counts too. */
export function runnerPackages(rcPath: string, config: unknown): string[] {
  const folder = dirname(resolve(rcPath));
  const servers = (config as { mcpServers?: unknown } | null)?.mcpServers;
  if (!servers || typeof servers !== "object") return [];
  const out: string[] = [];
  for (const s of Object.values(servers as Record<string, Record<string, unknown>>)) {
    if (!s || typeof s.command !== "string") continue;
    const words = [s.command, ...(Array.isArray(s.args) ? s.args : [])].filter((w): w is string => typeof w === "string");
    const base = serverCwd(folder, s.cwd);
    const serverEnvironment = serverEnv(folder, base, words, s.env);
    const env = Object.values(serverEnvironment).filter((v): v is string => typeof v === "string");
    const runners = runnerSpecs(words).filter((r) => !r.includes("..") && !r.includes("$"));
    // node also finds a preloaded package in NODE_PATH's folders (A27-11).
    const nodePath = searchDirs(serverEnvironment.NODE_PATH, base).filter((d) => inside(folder, d) || d === folder);
    for (const pkg of [...runners, ...preloadedPackages([...words, ...env])]) {
      if (pkg && !pkg.includes("..") && !pkg.includes("$")) out.push(...packageCopies(folder, base, pkg), ...nodePath.map((d) => copyAt(join(d, pkg))));
    }
    out.push(...codeHomes(folder, base, serverEnvironment));
    for (const runner of runners) out.push(...runnerBins(folder, base, runner));
    if (runners.length === 0 && runsScript(words)) out.push(...scriptSources(folder, base));
  }
  return out;
}

/**
 * Env values naming a folder an interpreter runs code from with no word naming a file: Python's user site under
 * PYTHONUSERBASE (its `*.pth` and usercustomize.py run at start-up: the thirty-first pass's A31b-1), its library under
 * PYTHONHOME, its bytecode under PYTHONPYCACHEPREFIX, and a HOME or XDG folder of the server's own (the user site in
 * `~/.local`, every tool's dotfiles). One inside the project is covered whole, present or absent (past the bound it
 * counts as changed every time: fail closed).
 */
const CODE_HOME = /^(?:PYTHONUSERBASE|PYTHONHOME|PYTHONPYCACHEPREFIX|HOME|XDG_CONFIG_HOME|XDG_DATA_HOME)$/;

function codeHomes(folder: string, base: string, env: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(env)) {
    if (!CODE_HOME.test(key) || typeof value !== "string") continue;
    for (const dir of searchDirs(withKnownVars(value, base), base)) if (inside(folder, dir) || dir === folder) out.push(copyAt(dir));
  }
  return out;
}

/** What `pkg` is in every node_modules from `base` up to the project folder (node and npm exec look in each). */
function packageCopies(folder: string, base: string, pkg: string): string[] {
  const out: string[] = [];
  for (let dir = base; inside(folder, dir) || dir === folder; dir = dirname(dir)) {
    const modules = join(dir, "node_modules");
    const home = join(modules, pkg);
    out.push(copyAt(home));
    if (!lstatSync(home, { throwIfNoEntry: false })) continue;
    const bin = join(modules, ".bin");
    for (const name of binsOf(home) ?? readdirSafe(bin)) {
      const p = join(bin, name);
      const b = lstatSync(p, { throwIfNoEntry: false });
      if (b?.isSymbolicLink()) out.push(`${p}\0link\0${readlinkSync(p)}`);
      else if (b) out.push(`${p}\0${fileDigest(p)}`);
    }
  }
  return out;
}

/** What a package copy at `home` is: its whole tree (through a link, with the link's target), or that it is absent. */
function copyAt(home: string): string {
  const st = lstatSync(home, { throwIfNoEntry: false });
  return `${home}\0${st ? (st.isSymbolicLink() ? `link\0${readlinkSync(home)}\0${treeDigest(home)}` : treeDigest(home)) : "absent"}`;
}

/** What a file or link at `p` is (its target, or its content's digest), or that nothing is there. */
function entryAt(p: string): string {
  const st = lstatSync(p, { throwIfNoEntry: false });
  if (!st) return `${p}\0absent`;
  if (st.isSymbolicLink()) return `${p}\0link\0${readlinkSync(p)}\0${fileDigest(p)}`;
  return `${p}\0${st.isFile() ? fileDigest(p) : "other"}`;
}

/**
 * What npm exec runs for `npx pkg` before it looks at any package copy: a bin of that name in the project's own
 * package.json, `node_modules/.bin/<name>` (scoped too: `.bin/@s/pkg`, which npm runs as a relative path, so a
 * `./@s/pkg` in the folder as well) — present or absent at trust time (a planted one was run on the host at the next
 * start: the twenty-seventh pass's A27-1). The manifest counts by its name and bins only (an install rewrites the rest).
 */
function runnerBins(folder: string, base: string, pkg: string): string[] {
  const names = [...new Set([pkg, pkg.replace(/^@[^/]+\//, "")])];
  const out = names.map((n) => entryAt(join(base, n)));
  for (let dir = base; inside(folder, dir) || dir === folder; dir = dirname(dir)) {
    for (const n of names) out.push(entryAt(join(dir, "node_modules", ".bin", n)));
    out.push(`${join(dir, "package.json")}\0${manifestBins(join(dir, "package.json"))}`);
    for (const f of RUNNER_SETTINGS) out.push(entryAt(join(dir, f)));
  }
  return out;
}

/**
 * The package managers' project settings a runner reads on the way: `.npmrc`'s script-shell, node-options or registry
 * choose what runs and with which code preloaded (a sandboxed command wrote one and the next start ran it on the host:
 * the twenty-seventh pass's A27-5); yarn's and bun's equivalents, and pnpm's hook file.
 */
const RUNNER_SETTINGS = [".npmrc", ".yarnrc", ".yarnrc.yml", "bunfig.toml", ".pnpmfile.cjs"];

/** `npm run srv`, `npm start`, `yarn srv`, `pnpm srv`, `bun run srv`: a package manager running a project script. */
const runsScript = (words: string[]) => /^(?:npm|pnpm|yarn|bun)$/.test(words[0]?.split("/").pop() ?? "") && !words.slice(1).some((w) => /^(?:exec|dlx|x)$/.test(w));

/** What a script a package manager runs is: every package.json on the way up (its scripts), whole, and the settings. */
function scriptSources(folder: string, base: string): string[] {
  const out: string[] = [];
  for (let dir = base; inside(folder, dir) || dir === folder; dir = dirname(dir)) out.push(...["package.json", ...RUNNER_SETTINGS].map((f) => entryAt(join(dir, f))));
  return out;
}

/** A package.json's name and bins as text ("absent" or "unreadable" otherwise). */
function manifestBins(path: string): string {
  if (!lstatSync(path, { throwIfNoEntry: false })) return "absent";
  try {
    const json = JSON.parse(readFileSync(path, "utf8")) as { name?: unknown; bin?: unknown; directories?: { bin?: unknown } };
    // …and what those bins are: npx runs the file a bin names.
    const files = typeof json.bin === "string" ? [json.bin] : json.bin && typeof json.bin === "object" ? Object.values(json.bin) : [];
    const contents = files.filter((f): f is string => typeof f === "string").map((f) => entryAt(resolve(dirname(path), f)));
    return JSON.stringify([json.name ?? null, json.bin ?? null, json.directories?.bin ?? null, contents]);
  } catch {
    return randomBytes(16).toString("hex"); // unreadable: changed every time (fail closed)
  }
}

/** The names a package's package.json gives its bins (`bin`: a string is the package's own name), else undefined. */
function binsOf(pkgDir: string): string[] | undefined {
  try {
    const json = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { name?: unknown; bin?: unknown };
    if (typeof json.bin === "string" && typeof json.name === "string") return [json.name.replace(/^@[^/]+\//, "")];
    if (json.bin && typeof json.bin === "object") return Object.keys(json.bin).sort();
    return [];
  } catch {
    return undefined;
  }
}

function readdirSafe(d: string): string[] {
  try {
    return readdirSync(d).sort();
  } catch {
    return [];
  }
}

function fileDigest(path: string): string {
  try {
    if (statSync(path).size > MAX_SERVER_FILE) return randomBytes(16).toString("hex");
    return sha256Of(readFileSync(path));
  } catch {
    return randomBytes(16).toString("hex");
  }
}

/** The value a trust record holds: the file's sha256 alone when no server names a project file (as before). */
export function trustDigest(rcPath: string, bytes: Buffer | string, config: unknown): string {
  const files = serverFiles(rcPath, config);
  const packages = runnerPackages(rcPath, config);
  if (files.length === 0 && packages.length === 0) return sha256Of(bytes);
  return sha256Of([sha256Of(bytes), ...files.map((f) => `${f}\0${fileDigest(f)}`), ...packages].join("\0"));
}
