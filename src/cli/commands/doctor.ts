// `deerflow doctor`: one line per check, ✓ or ✗, so a user can see at a glance what is wrong with the setup.
import { createRequire } from "node:module";
import { hookLines } from "../../vocabulary/hook-notice.js";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { formatErrorLine } from "../../errors.js";
import { fetchFollowingSameOrigin } from "../../model/same-origin-fetch.js";
import { type ResolvedConfig, loadConfig, requireModel } from "../../config/load.js";
import { ignoredNotice } from "../../config/project-trust.js";
import { webSearchSetup } from "../../config/web-search.js";
import { DB_FILE } from "../../persistence/store.js";
import { checkDatabase, repairDatabase } from "../../persistence/repair.js";
import type { GlobalOptions } from "../main.js";
import { forTerminal } from "../../vocabulary/terminal-text.js";

interface Check {
  ok: boolean;
  /** Works, but the user should know (printed with "!"; does not fail doctor). */
  warn?: boolean;
  label: string;
  detail: string;
}

function nodeCheck(): Check {
  const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
  const ok = major > 20 || (major === 20 && minor >= 19);
  return { ok, label: "node", detail: ok ? `v${process.versions.node}` : `v${process.versions.node}: deerflow needs Node >= 20.19` };
}

async function sqliteCheck(): Promise<Check> {
  try {
    // require, not import(): this runs inside the runtime bundle, and a dynamic import there fails once V8's code
    // cache is used (scripts/bundle-runtime.mjs refuses one).
    const Database = createRequire(import.meta.url)("better-sqlite3") as typeof import("better-sqlite3");
    const db = new Database(":memory:");
    const { v } = db.prepare("select sqlite_version() as v").get() as { v: string };
    db.close();
    return { ok: true, label: "sqlite", detail: `better-sqlite3 loads (SQLite ${v})` };
  } catch (err) {
    return { ok: false, label: "sqlite", detail: `better-sqlite3 does not load: ${(err as Error).message.split("\n")[0]} (reinstall with npm install)` };
  }
}

function homeCheck(home: string): Check {
  try {
    mkdirSync(home, { recursive: true });
    const probe = join(home, `.doctor-${process.pid}`);
    writeFileSync(probe, "ok");
    rmSync(probe);
    return { ok: true, label: "home", detail: `${home} is writable` };
  } catch (err) {
    return { ok: false, label: "home", detail: `${home} is not writable: ${(err as Error).message} (set --home or DEERFLOW_HOME)` };
  }
}

async function endpointCheck(config: ResolvedConfig): Promise<Check> {
  let model;
  try {
    model = requireModel(config);
  } catch (err) {
    const { describeServers, discoverLocalServers } = await import("../../model/discover.js");
    const servers = config.model ? [] : await discoverLocalServers();
    const found = servers.length ? ` Found locally: ${describeServers(servers)}.` : "";
    return { ok: false, label: "model", detail: `${formatErrorLine(err)}${found}` };
  }
  const url = `${model.baseUrl}/models`;
  try {
    // As the model's own requests: a redirect to another host is not followed (it would call that host reachable).
    const init: RequestInit = { headers: model.apiKey ? { authorization: `Bearer ${model.apiKey}` } : {}, signal: AbortSignal.timeout(5000) };
    const res = await fetchFollowingSameOrigin(fetch, url, init, model.baseUrl);
    if (res.status === 401 || res.status === 403) {
      return {
        ok: false,
        label: "model",
        detail: `${model.baseUrl} rejected the API key (HTTP ${res.status}): check OPENAI_API_KEY or the model's apiKey${model.keyWithheld ? ` (${model.keyWithheld})` : ""}`,
      };
    }
    if (res.status >= 500) return { ok: false, label: "model", detail: `${model.baseUrl} answers HTTP ${res.status}: the server is failing` };
    return { ok: true, label: "model", detail: `${model.name} (${model.model}) at ${model.baseUrl} is reachable` };
  } catch (err) {
    const reason = (err as Error).name === "TimeoutError" ? "no answer within 5 s" : ((err as { cause?: Error }).cause?.message ?? (err as Error).message);
    return { ok: false, label: "model", detail: `${model.baseUrl} is not reachable: ${reason} (is the server running? is OPENAI_BASE_URL right?)` };
  }
}

function databaseCheck(home: string): Check {
  const r = checkDatabase(join(home, DB_FILE));
  return { ok: r.ok, label: "db", detail: r.detail };
}

/** The team database (`database`): reachable, and at which schema version; read-only, the URL without its password. */
async function teamDatabaseCheck(url: string): Promise<Check> {
  const { checkTeamDatabase } = await import("../../persistence/postgres-connection.js");
  const r = await checkTeamDatabase(url);
  return { ok: r.ok, label: "db", detail: r.detail };
}

/** `doctor --repair`: back up, recover, and say per thread what survived. */
function repair(home: string): number {
  const path = join(home, DB_FILE);
  const before = checkDatabase(path);
  if (before.ok) {
    process.stdout.write(`✓ db      ${before.detail}: nothing to repair\n`);
    return 0;
  }
  const report = repairDatabase(path);
  process.stdout.write(`backed up the damaged database to ${report.backup}\n`);
  for (const [table, r] of Object.entries(report.rows)) process.stdout.write(`  ${table.padEnd(16)} ${r.copied} rows recovered${r.unreadable ? `, ${r.unreadable} unreadable` : ""}\n`);
  for (const t of report.threads) {
    const what =
      t.state === "intact"
        ? `recovered (${t.checkpoints} checkpoints)`
        : t.state === "partial"
          ? `partly recovered (${t.checkpoints} checkpoints; some history lost)`
          : "lost (no readable checkpoints)";
    process.stdout.write(`  thread ${t.id}${t.title ? ` "${t.title}"` : ""}: ${what}\n`);
  }
  const after = checkDatabase(path);
  process.stdout.write(`${after.ok ? "✓" : "✗"} db      ${after.detail}\n`);
  return after.ok ? 0 : 1;
}

async function sandboxCheck(config: ResolvedConfig): Promise<Check> {
  const { BWRAP_MISSING_WARNING, findBwrap } = await import("../../sandbox/run-shell.js");
  const { sandboxPathProblems } = await import("../../sandbox/workspace-check.js");
  const [refused] = sandboxPathProblems(config.sandbox, { userHome: process.env.HOME ?? homedir(), dataDir: config.home });
  if (refused) return { ok: false, label: "sandbox", detail: `${refused} Runs stop with exit 2 until it is removed.` };
  // The settings first: they note the folders bwrap is never taken from (readWrite, earlier workspaces), as a run does.
  (await import("../../sandbox/shell-settings.js")).shellSettingsFromConfig(config);
  const bwrap = findBwrap();
  if (!bwrap && config.sandbox.require)
    return { ok: false, label: "sandbox", detail: "bubblewrap (bwrap) is not available and sandbox.require is true: shell commands are refused (install the `bubblewrap` package)" };
  // "Works" only when a command really ran with these settings (binds, hidden paths, network): a setting that breaks
  // the sandbox's start fails here, not in the first run.
  const failed = await trialCommand(config);
  if (failed) return { ok: false, label: "sandbox", detail: `a shell command fails with these settings: ${failed}` };
  const { networkModeText } = await import("../../sandbox/shell-settings.js");
  const network = networkModeText(config.sandbox, bwrap !== null);
  if (bwrap) return { ok: true, label: "sandbox", detail: `bubblewrap works (${bwrap}): shell commands run confined; ${network}` };
  return { ok: true, warn: true, label: "sandbox", detail: `${BWRAP_MISSING_WARNING} ${network}.` };
}

/** Runs `echo` as the bash tool would, in a throwaway thread folder; why it failed, or undefined. */
async function trialCommand(config: ResolvedConfig): Promise<string | undefined> {
  const { closeShellSessions, runShell, setShellWarningSink } = await import("../../sandbox/run-shell.js");
  const { shellSettingsFromConfig } = await import("../../sandbox/shell-settings.js");
  const root = mkdtempSync(join(tmpdir(), "deerflow-doctor-"));
  const paths = { workspace_path: join(root, "workspace"), uploads_path: join(root, "uploads"), outputs_path: join(root, "outputs") };
  for (const p of Object.values(paths)) mkdirSync(p);
  setShellWarningSink(() => {}); // the check's own line says it
  try {
    const r = await runShell("echo deerflow-sandbox-ok", { paths, settings: shellSettingsFromConfig(config), cwd: paths.workspace_path, timeoutSeconds: 30 });
    if (r.exitCode === 0 && r.output.includes("deerflow-sandbox-ok")) return undefined;
    return r.output.trim().split("\n")[0] || `exit ${r.exitCode ?? r.signal}`;
  } catch (err) {
    return err instanceof Error ? err.message.split("\n")[0] : String(err);
  } finally {
    await closeShellSessions();
    rmSync(root, { recursive: true, force: true });
  }
}

/** Rewind snapshots the workspace's files with git; without it only the conversation can be rewound (a warning). */
async function gitCheck(): Promise<Check> {
  const { gitAvailable } = await import("../../snapshots/git.js");
  if (await gitAvailable()) return { ok: true, label: "git", detail: "found: files are snapshotted before each run, so rewind restores them" };
  return { ok: true, warn: true, label: "git", detail: "not found: rewind restores the conversation only (install git to rewind files too)" };
}

/**
 * A rewind that a killed process left half done is finished here (what the user asked for), one line per thread;
 * one that cannot be finished fails doctor with the command that puts the files back instead.
 */
async function interruptedRewindChecks(config: ResolvedConfig): Promise<Check[]> {
  const { RewindLog } = await import("../../persistence/rewind-log.js");
  const threads = config.database ? [] : RewindLog.threadsWithPendingIn(join(config.home, DB_FILE));
  if (threads.length === 0) return [];
  const { ThreadRuntime } = await import("../../runtime/thread-runtime.js");
  const { finishInterruptedRewind } = await import("../../runtime/rewind.js");
  const { filesSummary } = await import("../../vocabulary/rewind-text.js");
  const runtime = ThreadRuntime.for(config);
  const out: Check[] = [];
  try {
    for (const threadId of threads) {
      try {
        const r = await runtime.withThreadLock(threadId, () => finishInterruptedRewind({ home: config.home, store: runtime.store, runtime, threadId }));
        if (r)
          out.push({
            ok: true,
            label: "rewind",
            detail: `finished rewind ${r.rewind_id} of thread ${threadId}, which was interrupted: ${r.files ? filesSummary(r.files.restored) : "no files"} restored (the files from before it are at ${r.files_before?.ref ?? "-"})`,
          });
      } catch (err) {
        // Held by a live process: that rewind is under way, not interrupted.
        if (/ is busy: /.test(formatErrorLine(err))) out.push({ ok: true, warn: true, label: "rewind", detail: `a rewind of thread ${threadId} is under way (${formatErrorLine(err)})` });
        else
          out.push({
            ok: false,
            label: "rewind",
            detail: `rewind of thread ${threadId} was interrupted and could not be finished: ${formatErrorLine(err)} (\`deerflow rewind ${threadId} --undo\` puts the files back)`,
          });
      }
    }
  } finally {
    await ThreadRuntime.closeAll();
  }
  return out;
}

/** grep and glob run on ripgrep when it is installed, on the (much slower) JavaScript walker otherwise (a warning). */
async function searchCheck(): Promise<Check> {
  const { findRipgrep } = await import("../../tools/ripgrep.js");
  const rg = findRipgrep();
  if (rg) return { ok: true, label: "search", detail: `ripgrep found (${rg}): grep and glob run on it` };
  return { ok: true, warn: true, label: "search", detail: "ripgrep not found: grep and glob use the JavaScript walker, slow on big repositories (install the `ripgrep` package)" };
}

/** One line per configured MCP server: started and listed its tools, or why not (a failure fails doctor). */
/** web_search: which provider, or how to add one (no search is made: a search costs the user credits). */
function webSearchCheck(config: ResolvedConfig): Check {
  const { setup, problem } = webSearchSetup(config.web);
  if (problem) return { ok: false, label: "web", detail: problem };
  if (setup) return { ok: true, label: "web", detail: `web_search uses ${setup.provider} at ${new URL(setup.endpoint).host}; web_fetch reads public pages` };
  return {
    ok: true,
    label: "web",
    detail:
      'web_fetch reads public pages; web_search is not offered: add "web": {"search": {"provider": "tavily", "apiKey": "$TAVILY_API_KEY"}} (or brave, or searxng with "url") to ~/.deerflowrc (docs/web.md)',
  };
}

async function mcpChecks(config: ResolvedConfig): Promise<Check[]> {
  if (Object.keys(config.mcp.servers).length === 0) return [];
  const { probeMcpServers } = await import("./mcp.js");
  return (await probeMcpServers(config)).map((s) => {
    const label = "mcp";
    if (s.status === "disabled") return { ok: true, warn: true, label, detail: `${s.name}: disabled (enabled: false)` };
    if (s.status === "ready") return { ok: true, label, detail: `${s.name} (${s.kind}): started, ${s.tools.length} tools` };
    return { ok: false, label, detail: `${s.name} (${s.kind}): ${s.error ?? s.status} (check mcpServers.${s.name} in .deerflowrc)` };
  });
}

/** Installed skills (a skipped one is a warning, with its reason) and the memory store (a damaged one fails). */
async function skillsAndMemoryChecks(config: ResolvedConfig): Promise<Check[]> {
  const { discoverSkills } = await import("../../skills/catalog.js");
  const { skills, problems } = discoverSkills({ home: config.home, cwd: process.cwd() });
  const out: Check[] = [
    {
      ok: true,
      label: "skills",
      detail: skills.length
        ? `${skills.length} installed: ${skills.map((s) => `${s.name} [${s.scope}]`).join(", ")}`
        : "none installed (.deerflow/skills/<name>/SKILL.md, or skills/ in the data directory)",
    },
  ];
  for (const p of problems) out.push({ ok: true, warn: true, label: "skills", detail: `skipped ${p}` });
  if (!config.memory.enabled) return [...out, { ok: true, label: "memory", detail: "off (memory.enabled: false)" }];
  const { MEMORY_DB, MEMORY_DIR, MemoryStore } = await import("../../memory/store.js");
  if (!existsSync(join(config.home, MEMORY_DIR, MEMORY_DB))) return [...out, { ok: true, label: "memory", detail: "on; nothing remembered yet" }];
  try {
    const store = new MemoryStore(config.home);
    try {
      out.push({ ok: true, label: "memory", detail: `${store.list({ all: true }).length} facts remembered, ${store.pending().length} runs waiting for extraction (${store.path})` });
    } finally {
      store.close();
    }
  } catch (err) {
    out.push({ ok: false, label: "memory", detail: formatErrorLine(err) });
  }
  return out;
}

export async function doctorCommand(opts: GlobalOptions & { repair?: boolean }): Promise<number> {
  const checks: Check[] = [nodeCheck(), await sqliteCheck()];
  let config: ResolvedConfig | undefined;
  try {
    config = loadConfig({ flags: { home: opts.home, model: opts.model } });
    if (opts.repair) return repair(config.home);
    checks.push(homeCheck(config.home));
    checks.push(config.database ? await teamDatabaseCheck(config.database) : databaseCheck(config.home));
    if (checks.at(-1)!.ok) checks.push(...(await interruptedRewindChecks(config)));
    checks.push({ ok: true, label: "config", detail: config.files.length ? `valid (${config.files.join(", ")})` : "valid (no .deerflowrc: environment and defaults)" });
    if (config.untrusted) checks.push({ ok: true, warn: true, label: "trust", detail: ignoredNotice(config.untrusted) });
    checks.push(await endpointCheck(config));
    checks.push(await sandboxCheck(config));
    checks.push(await gitCheck());
    checks.push(await searchCheck());
    checks.push(webSearchCheck(config));
    checks.push(...(await mcpChecks(config)));
    checks.push(...(await skillsAndMemoryChecks(config)));
    const hooks = hookLines(config.hooks);
    if (hooks.length) checks.push({ ok: true, label: "hooks", detail: `${hooks.length} configured: ${hooks.join("; ")}` });
  } catch (err) {
    checks.push({ ok: false, label: "config", detail: formatErrorLine(err) });
  }
  for (const c of checks) process.stdout.write(forTerminal(`${c.ok ? (c.warn ? "!" : "✓") : "✗"} ${c.label.padEnd(7)} ${c.detail}`) + "\n");
  return checks.every((c) => c.ok) ? 0 : 1;
}
