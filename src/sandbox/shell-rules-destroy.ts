// Other tools' destroy and publish verbs (the sixteenth pass, Y9): what a careless model writes to "free disk space",
// "reset the dev environment" or "release it" — `docker system prune -af --volumes`, `terraform destroy
// -auto-approve`, `kubectl delete namespace dev`, `dropdb`, `redis-cli FLUSHALL`, `npm publish`. The harm is outside
// the workspace (volumes, a deployment, a cluster, a database, a public registry) and rewind cannot undo it, so each
// is an ask with its own reason: without a sandbox a person answers it (`--yes` and yolo do not). Inside bubblewrap
// the daemon sockets and credentials are hidden and these fail; they still ask, as package installs do. Beyond the
// names, destroysByShape (below) judges any program by its task words.
import { longOption } from "./option-table.js";
import type { Pipeline, SimpleCommand } from "./shell-command.js";
import { commandOnlyReads } from "./shell-read-only.js";
import { launched } from "./shell-runners.js";

export const DESTROYS_REASON = "stops or destroys things outside the workspace that rewind cannot restore (containers, volumes, a deployment, a cluster, a database, processes)";
export const PUBLISHES_REASON = "publishes to a registry or deletes a hosted repository: it cannot be taken back";

const words = (c: SimpleCommand) => c.args.filter((a) => !a.startsWith("-"));
const has = (c: SimpleCommand, re: RegExp) => c.args.some((a) => re.test(a));

/** A word among the arguments: `docker … rm`, `kubectl … delete` (an option's value may shift the position). */
const verb = (c: SimpleCommand, re: RegExp) => words(c).some((w) => re.test(w));

const tool = (c: SimpleCommand) => launched(c).tool;

const CONTAINERS = /^(?:docker|podman|nerdctl|docker-compose|podman-compose)$/;
/** SQL that drops or empties: `psql -c`, `mysql -e`, a statement file is not read. */
const DROP_SQL = /\b(?:drop|truncate|delete\s+from|flushall|flushdb|shutdown)\b|\b(?:dropDatabase|dropCollection|deleteMany|shutdownServer|pg_terminate_backend)\s*\(|\.drop\s*\(/i;

const DB_CLIENT = /^(?:psql|mysql|mariadb|sqlcmd|mongo|mongosh|cqlsh|clickhouse-client|sqlite3?|duckdb|redis-cli)$/;

/** SQL piped into a database client (`echo 'DROP DATABASE app;' | psql`): the text a printer before it gives. */
export function pipesDropSql(c: SimpleCommand, p: Pipeline, i: number): boolean {
  if (!DB_CLIENT.test(c.name) || i === 0) return false;
  const before = p.commands[i - 1];
  return before !== undefined && /^(?:echo|printf|cat)$/.test(before.name) && (before.args.some((a) => DROP_SQL.test(a)) || DROP_SQL.test(before.stdinText ?? ""));
}

const RULES: readonly ((c: SimpleCommand) => boolean)[] = [
  // docker system|volume|image|container|network|builder prune, docker rm/rmi, volume rm, compose down -v.
  (c) => CONTAINERS.test(c.name) && (verb(c, /^(?:prune|rm|rmi|remove|kill|stop|restart|pause)$/) || (verb(c, /^down$/) && has(c, /^(?:-[\w#]*v|--volumes|--rmi)/))),
  // A key deleted from the user's keyring (the twenty-eighth pass's A28-1: a secret key in ~/.gnupg, gone).
  (c) =>
    /^gpg2?$/.test(c.name) &&
    c.args.some((a) => /^--delete-(?:secret-and-public-key|secret-key|key)$/.test(a) || ["delete-secret-and-public-keys", "delete-secret-keys", "delete-keys"].some((o) => longOption(a, o, 3))),
  (c) =>
    /^(?:terraform|tofu|terragrunt|pulumi)$/.test(c.name) &&
    // A saved plan applies without a prompt, whatever it does (`plan -destroy -out=p`, then `apply p`: A30a-9).
    (verb(c, /^destroy$/) ||
      (verb(c, /^(?:apply|up)$/) && (has(c, /^--?(?:auto-approve|destroy|yes)\b/) || words(c).length > 1)) ||
      (verb(c, /^(?:state|workspace|stack)$/) && verb(c, /^(?:rm|delete)$/))),
  (c) => /^(?:kubectl|oc|microk8s)$/.test(c.name) && verb(c, /^(?:delete|drain)$/),
  (c) => c.name === "helm" && verb(c, /^(?:uninstall|delete|del|un)$/),
  (c) => /^(?:dropdb|dropuser|mysqladmin)$/.test(c.name) && (c.name !== "mysqladmin" || verb(c, /^drop$/i)),
  (c) => DB_CLIENT.test(c.name) && (c.args.some((a) => DROP_SQL.test(a)) || DROP_SQL.test(c.stdinText ?? "")),
  (c) => c.name === "redis-cli" && verb(c, /^(?:flushall|flushdb)$/i),
  (c) => c.name === "aws" && ((verb(c, /^s3$/) && (verb(c, /^rb$/) || (verb(c, /^rm$/) && has(c, /^--recursive$/)))) || verb(c, /^(?:delete|terminate)-/)),
  (c) => /^(?:gcloud|az|doctl|flyctl|fly|heroku)$/.test(c.name) && verb(c, /^(?:delete|destroy|remove)$|^apps:destroy$/),
  (c) => c.name === "fuser" && has(c, /^-[\w#]*k/),
  (c) => /^(?:conda|mamba|micromamba)$/.test(c.name) && verb(c, /^(?:remove|uninstall)$/) && (verb(c, /^env$/) || has(c, /^--all$/)),
  // The seventeenth pass (Y10): the frameworks' own "reset the database" verbs and a sync that deletes remotely.
  (c) => tool(c) === "prisma" && ((verb(c, /^migrate$/) && verb(c, /^reset$/)) || (verb(c, /^db$/) && has(c, /^--(?:force-reset|accept-data-loss)$/))),
  (c) => /^(?:rails|rake)$/.test(tool(c)) && verb(c, /^db:(?:drop|reset|purge|truncate_all|schema:load|migrate:reset)(?::|$)/),
  (c) => tool(c) === "supabase" && verb(c, /^db$/) && verb(c, /^reset$/),
  (c) => /^python\d*(?:\.\d+)?$/.test(c.name) && c.args.some((a) => /(?:^|\/)manage\.py$/.test(a)) && verb(c, /^(?:flush|reset_db|sqlflush)$/),
  (c) => c.name === "aws" && verb(c, /^s3$/) && verb(c, /^sync$/) && has(c, /^--delete$/),
  // The twenty-ninth pass (A29a-7/10): SQL from a file the audit does not read, syncs that delete at the destination,
  // a deployment scaled to nothing, and the user's servers and agents stopped.
  (c) => DB_CLIENT.test(c.name) && !/^(?:sqlite3?|duckdb)$/.test(c.name) && c.redirects.some((r) => r.op === "<" && r.target !== "/dev/null"),
  (c) => (c.name === "rclone" && verb(c, /^sync$/)) || (c.name === "gsutil" && verb(c, /^rsync$/) && has(c, /^-[\w#]*d/)) || (c.name === "s3cmd" && has(c, /^--delete/)),
  (c) => /^(?:kubectl|oc)$/.test(c.name) && verb(c, /^scale$/) && has(c, /^--replicas=0$/),
  (c) => /^(?:service|rc-service)$/.test(c.name) && c.args.some((a) => /^(?:stop|restart|force-stop|kill)$/.test(a)),
  (c) => /^(?:pg_ctl|pg_ctlcluster|supervisorctl|pm2|rabbitmqctl|apachectl|apache2ctl|httpd)$/.test(c.name) && c.args.some((a) => /^(?:stop\w*|restart|kill|delete|shutdown|graceful-stop)$/.test(a)),
  (c) =>
    (c.name === "redis-cli" && verb(c, /^shutdown$/i)) || (c.name === "mysqladmin" && verb(c, /^shutdown$/)) || (c.name === "nginx" && has(c, /^-s$/) && c.args.some((a) => /^(?:stop|quit)$/.test(a))),
  (c) => c.name === "gpgconf" && c.args.some((a) => longOption(a, "kill", 2)),
];

const PUBLISH: readonly ((c: SimpleCommand) => boolean)[] = [
  (c) => /^(?:npm|pnpm|yarn|bun)$/.test(c.name) && verb(c, /^(?:publish|unpublish|deprecate)$/),
  (c) => c.name === "cargo" && verb(c, /^(?:publish|yank)$/),
  (c) => c.name === "twine" && verb(c, /^upload$/),
  (c) => c.name === "gem" && verb(c, /^(?:push|yank)$/),
  (c) => /^(?:poetry|uv|flit|hatch)$/.test(c.name) && verb(c, /^publish$/),
  (c) => c.name === "gh" && verb(c, /^(?:repo|release)$/) && verb(c, /^delete$/),
];

// The rule by shape (the eighteenth pass, Y10b: the names above were a list, and `php artisan migrate:fresh`, `mix
// ecto.reset`, `flyway clean`, `cdk destroy`, `vercel remove` were not on it). A task word — a subcommand, a script
// or task name, a namespaced one (`db:drop`, `migrate:fresh`, `ecto.reset`, `sites:delete`) or a hyphenated one
// (`delete-stack`, `db-reset`) — that destroys, given to any program that is not a local tool (below), asks like the
// named ones: the harm is in a database, a deployment or a cloud account, which rewind cannot restore.
/** Words that destroy or remove what they name (a whole word, or one part of a namespaced or hyphenated one). */
const DESTROY_VERB =
  /^(?:destroy|drop|dropall|dropdb|reset|fresh|wipe|purge|flush|flushall|flushdb|truncate|nuke|obliterate|teardown|erase|clean|remove|rm|delete|del|uninstall|undeploy|deprovision|terminate|down|prune)$/i;
/** Migrations reverted to nothing: `alembic downgrade base`, `knex migrate:rollback --all`, `db:migrate:undo:all`, `migrate app zero`. */
const REVERT_VERB = /^(?:downgrade|rollback|undo|revert|down)$/i;
const REVERT_ALL = /^(?:base|zero|all|--all|0)$/i;
const TO_NOTHING = /^(?:base|zero|VERSION=0)$/i;
/** Options that destroy whatever the subcommand (`prisma db push --force-reset`, `--drop-database`). */
const DESTROY_FLAG = /^--(?:force-reset|drop-database|drop-all|drop|wipe|purge|nuke)$/i;
/** A namespaced `clean` that empties a database (`mvn flyway:clean`), unlike a build tool's `clean`. */
const DB_CLEAN = /^(?:flyway|liquibase|db|database|schema)[:.]clean$/i;
/** At most this many task words are read (a subcommand sits near the start; operands after it are names). */
const TASK_WORDS = 4;

/**
 * Programs whose destroy-like words are local or judged elsewhere, so the shape rule leaves them alone:
 * - readers (shell-read-only.ts) and the file utilities (rm, cp, mv…: their own rules, edits and recursive deletes);
 * - tools with finer rules above or in shell-git.ts (git, containers, terraform, kubectl, helm, conda, sqlite3, crontab);
 * - test runners (their words are test names and filters: `pytest -k reset`).
 */
const LOCAL_TOOLS = new RegExp(
  `^(?:${[
    "rm|rmdir|unlink|shred|cp|mv|ln|install|touch|mkdir|truncate|tee|dd|chmod|chown|chgrp|find|trash|trash-put|tar|bsdtar|zip|unzip|7z|7za|ar|patch|rsync|scp|sed|awk|gawk",
    "git|docker|podman|nerdctl|docker-compose|podman-compose|terraform|tofu|terragrunt|pulumi|kubectl|oc|microk8s|helm|conda|mamba|micromamba|sqlite3?|crontab",
    "pytest|py\\.test|jest|vitest|mocha|ava|tap|rspec|phpunit|pest|ctest",
  ].join("|")})$`,
);
/**
 * Package managers: their own single-word subcommands (`npm uninstall`, `pip cache purge`, `yarn remove`, `cargo
 * clean`) change the local environment, which a reinstall or rebuild restores (removals without a sandbox are judged
 * by the package rules). The script or task they run is judged: `npm run db:reset`, `yarn migrate:fresh`, `deno task
 * db-drop` — but not a script named `clean` (next list).
 */
const PACKAGE_MANAGERS =
  /^(?:npm|pnpm|yarn|bun|deno|pip[\d.]*|pipx|uv|poetry|pdm|hatch|rye|pipenv|cargo|gem|bundle|composer|go|brew|apt|apt-get|aptitude|dpkg|dnf|yum|zypper|apk|pacman|port|snap|flatpak|nix-env|rustup|nvm|pyenv|rbenv|asdf|mise|volta|fnm|sdk|opam|cabal|stack)$/;
const RUNS_SCRIPT = /^(?:run|run-script|task)$/;
/**
 * Build tools (and package scripts) whose `clean` deletes build output inside the workspace: a rebuild restores it
 * and rewind covers it, so `make clean`, `cargo clean`, `go clean`, `dotnet clean`, `npm run clean` stay what they
 * were (an edit in ask mode; without a sandbox an ordinary ask that --yes approves). Their other words are judged:
 * `mix ecto.reset`, `dotnet ef database drop`, `rake db:drop`.
 */
const BUILD_TOOLS =
  /^(?:make|gmake|cmake|ninja|meson|scons|bazel|bazelisk|buck2?|mvn|mvnw|gradle|gradlew|ant|sbt|lein|mix|rake|dotnet|msbuild|xcodebuild|swift|flutter|dart|turbo|nx|lerna|tox|nox|cargo|go|stack|cabal|npm|pnpm|yarn|bun|deno|composer)$/;

/** The parts of a task word that name what it does: `db:drop` → drop, `ecto.reset` → reset, `delete-stack` → delete, stack. */
function taskParts(word: string, all = false): string[] {
  if (!/^[A-Za-z][\w-]*(?:[:.][A-Za-z][\w-]*)*$/.test(word)) return [];
  const segments = word.split(/[:.]/);
  // A namespaced word's first part is the namespace (`db:drop`, `ecto.reset`), a file name's is its name (`drop.sql`);
  // a package script's name is read whole (`reset:db`, `db-reset`: any part may be the verb).
  const named = segments.length > 1 && !all ? segments.slice(1) : segments;
  return named.flatMap((s) => [s, ...s.split(/[-_]/)]);
}

/** The task words a program is given, as the shape rule reads them (undefined: a local tool, nothing to judge; readers are left to destroysByShape). */
function taskWords(c: SimpleCommand): string[] | undefined {
  const { tool: name, words: given, script } = launched(c);
  const program = name.replace(/^.*\//, "");
  if (LOCAL_TOOLS.test(program)) return undefined;
  if (script) return given.slice(0, TASK_WORDS);
  if (PACKAGE_MANAGERS.test(program)) {
    if (RUNS_SCRIPT.test(given[0] ?? "")) return given.slice(1, 2);
    // `yarn db:reset`: a namespaced first word is a script (a package manager's own subcommands are single words).
    return /[:]/.test(given[0] ?? "") ? given.slice(0, 1) : [];
  }
  return given.slice(0, TASK_WORDS);
}

/** Whether a program not known to be local is given a task word that destroys (see DESTROY_VERB, REVERT_VERB). */
export function destroysByShape(c: SimpleCommand): boolean {
  const task = taskWords(c);
  if (!task?.length) return false;
  const run = launched(c);
  const program = run.tool.replace(/^.*\//, "");
  const scripts = PACKAGE_MANAGERS.test(program) || run.script === true;
  const parts = task.flatMap((w) => taskParts(w, scripts));
  const destroys =
    parts.some((p) => DESTROY_VERB.test(p) && !(/^clean$/i.test(p) && (BUILD_TOOLS.test(program) || scripts))) || task.some((w) => DB_CLEAN.test(w)) || c.args.some((a) => DESTROY_FLAG.test(a));
  const after = [...parts, ...c.args];
  const whole = task.flatMap((w) => taskParts(w, true));
  // `migrate:refresh`, `db:migrate:redo`… roll every migration back before running them again: the data goes.
  const refreshes = whole.some((p) => /^migrate$/i.test(p)) && whole.some((p) => /^(?:refresh|fresh|reset|redo)$/i.test(p));
  const revertsAll =
    refreshes || (parts.some((p) => REVERT_VERB.test(p)) && after.some((p) => REVERT_ALL.test(p))) || (whole.some((p) => /^migrate$/i.test(p)) && after.some((p) => TO_NOTHING.test(p)));
  // A reader given such a word (`grep drop`, `echo reset`) only reads: checked last, as it costs the most.
  return (destroys || revertsAll) && !commandOnlyReads(c);
}

/**
 * The command a container runs (`docker compose exec app php artisan migrate:fresh`, `docker run --rm img rails
 * db:drop`), judged as if typed: an option's value may shift the split, which only moves one word between the
 * container's name and the command.
 */
function containerCommand(c: SimpleCommand): SimpleCommand | undefined {
  if (!CONTAINERS.test(c.name)) return undefined;
  const at = c.args.findIndex((a) => /^(?:exec|run)$/.test(a));
  const after = at < 0 ? [] : c.args.slice(at + 1);
  const name = after.findIndex((a) => !a.startsWith("-"));
  const inner = name < 0 ? [] : after.slice(name + 1);
  return inner.length > 0 ? { ...c, name: inner[0]!.replace(/^.*\//, ""), args: inner.slice(1) } : undefined;
}

export const destroysOutside = (c: SimpleCommand, p?: Pipeline, i = 0): boolean => {
  const inner = containerCommand(c);
  return RULES.some((r) => r(c)) || destroysByShape(c) || (p !== undefined && pipesDropSql(c, p, i)) || (inner !== undefined && destroysOutside(inner));
};
export const publishes = (c: SimpleCommand) => PUBLISH.some((r) => r(c));
