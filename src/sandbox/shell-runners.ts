// Runners: commands that start another program — a package's binary (`npx prettier`, `pnpm dlx`, `bundle exec rake`,
// `uv run alembic`, `python -m alembic`), a package script (`yarn run db-reset`, `yarn prisma …`), or what follows a
// secrets wrapper's `--` (`doppler run -- …`). The rules that judge a program by what it does (destroy verbs, file
// writers) judge the program such a runner starts too: the twentieth pass's E1c ran `npx prettier --write .` unasked
// in ask mode where `prettier --write .` asks.
import { basename, interpreterName, type SimpleCommand } from "./shell-command.js";

const words = (c: SimpleCommand) => c.args.filter((a) => !a.startsWith("-"));

/**
 * A package manager's own subcommands: any other first word makes yarn, pnpm and bun run a package script or a
 * dependency's program (`yarn prisma migrate reset`, `pnpm db-reset`), judged as that program or script (the
 * nineteenth pass's Y10c: `npx prisma migrate reset` asked while `yarn prisma migrate reset` ran).
 */
const OWN_SUBCOMMANDS =
  /^(?:add|remove|rm|uninstall|un|install|i|ci|run|run-script|exec|dlx|x|create|init|test|t|tst|why|info|view|list|ls|ll|outdated|upgrade|upgrade-interactive|up|update|config|cache|link|unlink|pack|publish|audit|bin|global|workspace|workspaces|import|prune|rebuild|rb|root|store|patch|patch-commit|licenses|version|set|node|dedupe|ddp|env|help|login|logout|owner|search|start|stop|restart|whoami|plugin|constraints|explain|npm|stage|fetch|setup|server|deploy|recursive|fund|doctor|completion|approve-builds|self-update|repl|pm|build)$/;

/**
 * The program a runner starts and the words it is given (`npx prisma …`, `bundle exec rake …`, `pnpm dlx …`,
 * `uv run alembic …`, `python -m alembic …`), else the command's own.
 */
export function launched(c: SimpleCommand): { tool: string; words: string[]; script?: boolean } {
  const w = words(c);
  // A secrets or env wrapper runs what follows its `--` (`doppler run -- prisma migrate reset`: the twentieth pass's Y10d).
  const dash = c.args.indexOf("--");
  if (/^(?:doppler|dotenv|dotenvx|env-cmd|op|infisical|chamber|aws-vault|sops|with-env|varlock)$/.test(c.name) && dash >= 0)
    return { tool: c.args[dash + 1] ?? c.name, words: c.args.slice(dash + 2).filter((a) => !a.startsWith("-")) };
  // `yarn run prisma …`, `yarn workspace api prisma …`, `bun run prisma …`, and `yarn prisma …` (a first word that is not
  // the manager's own subcommand runs a script or a dependency's program).
  if (/^(?:yarn|pnpm|bun|npm)$/.test(c.name)) {
    const rest = c.name === "yarn" && w[0] === "workspace" ? w.slice(2) : w;
    // `script`: the words start with the script's or program's own name, which is judged too (`pnpm db-reset`).
    if (/^(?:run|run-script)$/.test(rest[0] ?? "") && rest[1]) return { tool: rest[1], words: rest.slice(1), script: true };
    if (c.name !== "npm" && rest[0] !== undefined && (rest !== w || !OWN_SUBCOMMANDS.test(rest[0]))) return { tool: rest[0], words: rest, script: true };
  }
  if (/^(?:npx|bunx|pnpx)$/.test(c.name)) return { tool: w[0] ?? c.name, words: w.slice(1) };
  if ((c.name === "bundle" && w[0] === "exec") || (/^(?:pnpm|yarn|npm)$/.test(c.name) && /^(?:dlx|exec)$/.test(w[0] ?? ""))) return { tool: w[1] ?? c.name, words: w.slice(2) };
  if (/^(?:uv|poetry|pipenv|pdm|hatch|rye)$/.test(c.name) && w[0] === "run") return { tool: w[1] ?? c.name, words: w.slice(2) };
  const m = c.args.indexOf("-m");
  if (/^python[\d.]*$/.test(c.name) && m >= 0 && c.args[m + 1]) return { tool: c.args[m + 1]!, words: c.args.slice(m + 2).filter((a) => !a.startsWith("-")) };
  return { tool: c.name, words: w };
}

/**
 * The command a runner starts, as a command of its own (its options kept: `npx prettier --write .` → `prettier
 * --write .`, `pnpm prettier --write .`); undefined when `c` runs no other program. A script's name is judged as a
 * program's would be (`yarn run prettier --write`), which is all its name says.
 */
export function launchedCommand(c: SimpleCommand): SimpleCommand | undefined {
  const run = launched(c);
  if (run.tool === c.name) return undefined;
  const at = c.args.indexOf(run.tool);
  if (at < 0 || c.dynamicArgs[at]) return undefined;
  const after = <T>(xs: T[] | undefined) => xs?.slice(at + 1);
  const { programPath: _runner, ...rest } = c;
  return {
    ...rest,
    name: interpreterName(basename(run.tool)),
    ...(run.tool.includes("/") ? { programPath: run.tool } : {}),
    args: c.args.slice(at + 1),
    dynamicArgs: c.dynamicArgs.slice(at + 1),
    heldCode: after(c.heldCode),
    globArgs: after(c.globArgs),
  };
}
