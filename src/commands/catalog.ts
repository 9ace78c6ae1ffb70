// Custom command discovery: Markdown files in the project's `.deerflow/commands/` (the working directory and each
// ancestor, nearest first) and then in the data directory's `commands/` (~/.deerflow/commands). The file name is the
// command (`review.md` → /review); folders are namespaces (`git/commit.md` → /git:commit). The first command of a
// name wins (a project's over a personal one); a built-in command's name (vocabulary/built-in-commands.ts) is never taken. Read once
// per process; a broken file is reported, never fatal.
//
// Hostile input (a cloned repository's folder): names are refused unless plain (letters, digits, `-`, `_`), symlinked
// folders are not walked, a symlinked file must stay inside its commands folder, depth and count are bounded.
import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { OTHER_USERS_FILE, isUserOrRoot, ownedByUserOrRoot, projectFoldersUp } from "../config/project-folders.js";
import { readInside } from "../skills/catalog.js";
import { stripControl } from "../vocabulary/terminal-text.js";
import { COMMAND_MAX_BYTES, type CommandFile, parseCommandFile } from "./command-file.js";
import { isBuiltInCommand } from "../vocabulary/built-in-commands.js";

export const COMMANDS_DIR = "commands";
/** Commands listed at most (the rest are reported as problems). */
export const MAX_COMMANDS = 200;
/** Namespace folders deeper than this are not walked. */
const MAX_DEPTH = 3;
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export interface CustomCommand extends CommandFile {
  /** `/name` without the slash, lowercase, `:` between namespaces. */
  name: string;
  scope: "project" | "user";
  /** The file's path (what /help shows as its source). */
  file: string;
}

export interface CommandCatalog {
  commands: CustomCommand[];
  /** One line per file that could not be used: path and reason. */
  problems: string[];
}

/** The commands directories to scan, nearest first, each real path once. */
function commandRoots(opts: { home: string; cwd: string }): { dir: string; real: string; scope: CustomCommand["scope"] }[] {
  const userDir = join(opts.home, COMMANDS_DIR);
  const out: { dir: string; scope: CustomCommand["scope"] }[] = [];
  for (const dir of projectFoldersUp(opts.cwd)) {
    const candidate = join(dir, ".deerflow", COMMANDS_DIR);
    if (candidate !== userDir && ownedByUserOrRoot(candidate)) out.push({ dir: candidate, scope: "project" });
  }
  out.push({ dir: userDir, scope: "user" });
  const seen = new Set<string>();
  // Each folder's real path is resolved once: its files must lie inside that (readInside), whatever a command swaps.
  return out.flatMap((r) => {
    try {
      if (!statSync(r.dir).isDirectory()) return [];
      const real = realpathSync(r.dir);
      if (seen.has(real)) return [];
      seen.add(real);
      return [{ ...r, real }];
    } catch {
      return [];
    }
  });
}

/** Every `.md` file under `dir` as [namespace segments, path], sorted, bounded in depth. */
function commandFiles(dir: string, problems: string[], project: boolean, prefix: string[] = []): [string[], string][] {
  const out: [string[], string][] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch (err) {
    problems.push(`${dir}: cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    return out;
  }
  for (const entry of entries) {
    if (entry.startsWith(".")) continue;
    const path = join(dir, entry);
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st?.isDirectory()) {
      if (project && !isUserOrRoot(st.uid)) problems.push(`${path}: skipped (${OTHER_USERS_FILE})`);
      else if (prefix.length + 1 < MAX_DEPTH) out.push(...commandFiles(path, problems, project, [...prefix, entry]));
      else problems.push(`${path}: not read (namespaces nest at most ${MAX_DEPTH - 1} deep)`);
    } else if (entry.endsWith(".md")) out.push([[...prefix, entry.slice(0, -3)], path]);
  }
  return out;
}

/** Every usable custom command under `home` and `cwd`, nearest first, one per name, none a built-in's. */
export function discoverCommands(opts: { home: string; cwd: string }): CommandCatalog {
  const commands: CustomCommand[] = [];
  const problems: string[] = [];
  const byName = new Set<string>();
  for (const root of commandRoots(opts)) {
    for (const [segments, file] of commandFiles(root.dir, problems, root.scope === "project")) {
      const bad = segments.find((s) => !SEGMENT.test(s));
      if (bad !== undefined) {
        problems.push(`${stripControl(file)}: skipped (${JSON.stringify(stripControl(bad).slice(0, 80))} is not a command name: letters, digits, - and _)`);
        continue;
      }
      const name = segments.join(":").toLowerCase();
      if (isBuiltInCommand(name)) {
        problems.push(`${file}: skipped (/${name} is a built-in command)`);
        continue;
      }
      if (byName.has(name)) continue; // a nearer command of that name wins
      let parsed: CommandFile;
      try {
        parsed = parseCommandFile(readInside(root.real, file, COMMAND_MAX_BYTES, { folder: "its commands folder", project: root.scope === "project" }));
      } catch (err) {
        problems.push(`${file}: ${(err as Error).message}`);
        continue;
      }
      if (commands.length >= MAX_COMMANDS) {
        problems.push(`${file}: skipped (more than ${MAX_COMMANDS} commands)`);
        continue;
      }
      byName.add(name);
      commands.push({ ...parsed, name, scope: root.scope, file });
    }
  }
  return { commands, problems };
}

const catalogs = new Map<string, CommandCatalog>();

/** The catalog of this process for a data directory and working directory (discovered on first use). */
export function commandCatalogFor(opts: { home: string; cwd: string }): CommandCatalog {
  const key = `${opts.home}\0${opts.cwd}`;
  let c = catalogs.get(key);
  if (!c) catalogs.set(key, (c = discoverCommands(opts)));
  return c;
}

/** The command `/name args` names, and its arguments; undefined when the text is not one of the catalog's. */
export function commandInvocation(text: string, catalog: CommandCatalog): { command: CustomCommand; args: string } | undefined {
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return undefined;
  const command = catalog.commands.find((c) => c.name === m[1]!.toLowerCase());
  return command ? { command, args: (m[2] ?? "").trim() } : undefined;
}
