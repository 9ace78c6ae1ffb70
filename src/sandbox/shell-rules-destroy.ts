// Other tools' destroy and publish verbs (the sixteenth pass, Y9): what a careless model writes to "free disk space",
// "reset the dev environment" or "release it" — `docker system prune -af --volumes`, `terraform destroy
// -auto-approve`, `kubectl delete namespace dev`, `dropdb`, `redis-cli FLUSHALL`, `npm publish`. The harm is outside
// the workspace (volumes, a deployment, a cluster, a database, a public registry) and rewind cannot undo it, so each
// is an ask with its own reason: without a sandbox a person answers it (`--yes` and yolo do not). Inside bubblewrap
// the daemon sockets and credentials are hidden and these fail; they still ask, as package installs do.
import type { SimpleCommand } from "./shell-command.js";

export const DESTROYS_REASON = "stops or destroys things outside the workspace that rewind cannot restore (containers, volumes, a deployment, a cluster, a database, processes)";
export const PUBLISHES_REASON = "publishes to a registry or deletes a hosted repository: it cannot be taken back";

const words = (c: SimpleCommand) => c.args.filter((a) => !a.startsWith("-"));
const has = (c: SimpleCommand, re: RegExp) => c.args.some((a) => re.test(a));

/** A word among the arguments: `docker … rm`, `kubectl … delete` (an option's value may shift the position). */
const verb = (c: SimpleCommand, re: RegExp) => words(c).some((w) => re.test(w));

/** The program a runner starts (`npx prisma …`, `bundle exec rake …`, `pnpm dlx …`), else the command's own. */
function tool(c: SimpleCommand): string {
  const w = words(c);
  if (/^(?:npx|bunx|pnpx)$/.test(c.name)) return w[0] ?? c.name;
  if ((c.name === "bundle" && w[0] === "exec") || (/^(?:pnpm|yarn)$/.test(c.name) && /^(?:dlx|exec)$/.test(w[0] ?? ""))) return w[1] ?? c.name;
  return c.name;
}

const CONTAINERS = /^(?:docker|podman|nerdctl|docker-compose|podman-compose)$/;
/** SQL that drops or empties: `psql -c`, `mysql -e`, a statement file is not read. */
const DROP_SQL = /\b(?:drop|truncate|delete\s+from|flushall|flushdb)\b|\b(?:dropDatabase|dropCollection|deleteMany)\s*\(|\.drop\s*\(/i;

const RULES: readonly ((c: SimpleCommand) => boolean)[] = [
  // docker system|volume|image|container|network|builder prune, docker rm/rmi, volume rm, compose down -v.
  (c) => CONTAINERS.test(c.name) && (verb(c, /^(?:prune|rm|rmi|remove|kill)$/) || (verb(c, /^down$/) && has(c, /^(?:-[\w#]*v|--volumes|--rmi)/))),
  (c) =>
    /^(?:terraform|tofu|terragrunt|pulumi)$/.test(c.name) &&
    (verb(c, /^destroy$/) || (verb(c, /^(?:apply|up)$/) && has(c, /^--?(?:auto-approve|destroy|yes)\b/)) || (verb(c, /^(?:state|workspace|stack)$/) && verb(c, /^(?:rm|delete)$/))),
  (c) => /^(?:kubectl|oc|microk8s)$/.test(c.name) && verb(c, /^(?:delete|drain)$/),
  (c) => c.name === "helm" && verb(c, /^(?:uninstall|delete|del|un)$/),
  (c) => /^(?:dropdb|dropuser|mysqladmin)$/.test(c.name) && (c.name !== "mysqladmin" || verb(c, /^drop$/i)),
  (c) => /^(?:psql|mysql|mariadb|sqlcmd|mongo|mongosh|cqlsh|clickhouse-client)$/.test(c.name) && c.args.some((a) => DROP_SQL.test(a)),
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
];

const PUBLISH: readonly ((c: SimpleCommand) => boolean)[] = [
  (c) => /^(?:npm|pnpm|yarn|bun)$/.test(c.name) && verb(c, /^(?:publish|unpublish|deprecate)$/),
  (c) => c.name === "cargo" && verb(c, /^(?:publish|yank)$/),
  (c) => c.name === "twine" && verb(c, /^upload$/),
  (c) => c.name === "gem" && verb(c, /^(?:push|yank)$/),
  (c) => /^(?:poetry|uv|flit|hatch)$/.test(c.name) && verb(c, /^publish$/),
  (c) => c.name === "gh" && verb(c, /^(?:repo|release)$/) && verb(c, /^delete$/),
];

export const destroysOutside = (c: SimpleCommand) => RULES.some((r) => r(c));
export const publishes = (c: SimpleCommand) => PUBLISH.some((r) => r(c));
