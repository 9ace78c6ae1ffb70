// `deerflow memory [list|add|edit|forget|clear|pending|approve|reject]`: the facts deerflow remembers across
// threads, as `/memory` shows them in the chat. The project is the working directory's (its repository root).
// Light on purpose: the memory store only, no model and no LangChain.
// Facts learned from a thread are pending until approved here (`pending` lists them with the proposals the policy
// refused, and the runs still queued for extraction); facts added here are in effect at once. Reading commands
// never create the store, so `deerflow memory` on a read-only data directory just says nothing is remembered.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../config/load.js";
import { refuseUntrusted } from "../../config/project-trust.js";
import { noteUntrusted } from "../untrusted-note.js";
import { UsageError } from "../../errors.js";
import { pendingHere, pendingLine, reviewTargets } from "../../memory/review.js";
import { type AddOutcome, MEMORY_DIR, MemoryStore } from "../../memory/store.js";
import { projectKeyOf } from "../../memory/project.js";
import { forTerminal, jsonText } from "../../vocabulary/terminal-text.js";
import type { GlobalOptions } from "../main.js";
import { reportFatal } from "../report-error.js";

export interface MemoryOptions extends GlobalOptions {
  json?: boolean;
  project?: boolean;
  all?: boolean;
}

/** Refused proposals shown by `memory pending` (the store keeps more; --json has them all). */
const REFUSALS_SHOWN = 10;

interface Ctx {
  store: MemoryStore;
  project: string;
  args: string[];
  opts: MemoryOptions;
  memoryOn: boolean;
}

function print(text: string): void {
  process.stdout.write(forTerminal(`${text}\n`));
}

function json(value: unknown): void {
  process.stdout.write(`${jsonText(value, 2)}\n`);
}

function ids(args: string[]): number[] {
  const out = args.map(Number);
  if (out.length === 0 || out.some((n) => !Number.isInteger(n) || n <= 0)) throw new UsageError("Give the numbers of the facts (see `deerflow memory list`).");
  return out;
}

function outcome(r: AddOutcome, verb: string): number {
  if (r.status === "refused") throw new UsageError(`Not remembered: ${r.reason}.`);
  print(`${verb} #${r.fact.id} (${r.fact.scope}): ${r.fact.text}`);
  return 0;
}

function list({ store, project, opts, memoryOn }: Ctx): number {
  const facts = store.list({ project: project || undefined, all: opts.all });
  if (opts.json) json(facts);
  else if (facts.length === 0) print("Nothing remembered yet.");
  else for (const f of facts) print(`#${f.id}  ${f.scope === "global" ? "global " : "project"}  ${f.text}${opts.all && f.project ? `  [${f.project}]` : ""}`);
  if (opts.json) return 0;
  const waiting = pendingHere(store, project, opts.all).length;
  if (waiting) process.stderr.write(`note: ${waiting} learned fact${waiting === 1 ? "" : "s"} wait for your review: deerflow memory pending\n`);
  if (!memoryOn) process.stderr.write("note: memory is off in .deerflowrc (memory.enabled: false): these facts are not shown to the model.\n");
  return 0;
}

function pending({ store, project, opts }: Ctx): number {
  const facts = pendingHere(store, project, opts.all);
  const refused = store.refusals();
  const runs = store.pending().map(({ transcript: _t, ...q }) => q);
  if (opts.json) {
    json({ facts, refused, runs });
    return 0;
  }
  if (facts.length) {
    print("Learned, waiting for your review (shown to no model until you approve):");
    for (const f of facts) print(pendingLine(f));
    print("Approve with `deerflow memory approve <n…|all>`, drop with `deerflow memory reject <n…|all>`.");
  } else print("Nothing learned waits for your review.");
  if (refused.length) {
    print(`Refused (never remembered), newest first${refused.length > REFUSALS_SHOWN ? `, ${REFUSALS_SHOWN} of ${refused.length}` : ""}:`);
    for (const r of refused.slice(0, REFUSALS_SHOWN)) print(`  - ${r.text === null ? "(text withheld)" : JSON.stringify(r.text)}: ${r.reason}`);
  }
  if (runs.length) print(`${runs.length} finished run(s) wait for their facts to be extracted (at the next start).`);
  return 0;
}

function approve({ store, project, args }: Ctx): number {
  const t = reviewTargets(store, args, project);
  if ("problem" in t) throw new UsageError(t.problem, "See `deerflow memory pending`.");
  if (t.ids.length === 0) return (print("Nothing learned waits for your review."), 0);
  const r = store.approve(t.ids);
  for (const f of r.approved) print(`Approved #${f.id} (${f.scope}): ${f.text}`);
  for (const x of r.refused) process.stderr.write(forTerminal(`deerflow: Not approved #${x.fact.id}: ${x.reason}; it was dropped.\n`));
  return r.refused.length ? 1 : 0;
}

function reject({ store, project, args }: Ctx): number {
  const t = reviewTargets(store, args, project);
  if ("problem" in t) throw new UsageError(t.problem, "See `deerflow memory pending`.");
  const gone = store.reject(t.ids);
  print(gone.length ? `Rejected ${gone.length} learned fact${gone.length === 1 ? "" : "s"}.` : "Nothing learned waits for your review.");
  return 0;
}

const ACTIONS: Record<string, (c: Ctx) => number> = {
  list,
  pending,
  approve,
  reject,
  add({ store, project, args, opts }) {
    if (opts.project && !project) throw new UsageError("No project here.", "Run it inside the project's directory.");
    return outcome(store.add({ scope: opts.project ? "project" : "global", project, text: args.join(" ") }), "Remembered");
  },
  edit({ store, args }) {
    const [id, ...rest] = args;
    if (!rest.length) throw new UsageError("Usage: deerflow memory edit <n> <new text>");
    return outcome(store.edit(ids([id!])[0]!, rest.join(" ")), "Changed");
  },
  forget({ store, args }) {
    const n = store.forget(ids(args));
    if (n === 0) throw new UsageError("No such fact.", "See `deerflow memory list` for the numbers.");
    print(`Forgot ${n} fact${n === 1 ? "" : "s"}.`);
    return 0;
  },
  clear({ store }) {
    const n = store.clear();
    print(`Forgot all ${n} remembered fact${n === 1 ? "" : "s"}.`);
    return 0;
  },
};

/** `list` and `pending` with no store yet: the empty answer, without creating anything (a read-only home works). */
function nothingYet(action: string, opts: MemoryOptions): number {
  if (action === "list") opts.json ? json([]) : print("Nothing remembered yet.");
  else opts.json ? json({ facts: [], refused: [], runs: [] }) : print("Nothing learned waits for your review.");
  return 0;
}

export async function memoryCommand(action: string | undefined, args: string[], opts: MemoryOptions): Promise<number> {
  try {
    const verb = action ?? "list";
    const run = ACTIONS[verb];
    if (!run) throw new UsageError(`Unknown memory action "${action}".`, "Use list, add, edit, forget, clear, pending, approve or reject.");
    const config = loadConfig({ flags: { home: opts.home } });
    // Reading is harmless; changing facts would act on a store chosen without the project's "home".
    if (verb === "list" || verb === "pending") noteUntrusted(config);
    else refuseUntrusted(config.untrusted);
    if ((verb === "list" || verb === "pending") && !existsSync(join(config.home, MEMORY_DIR))) return nothingYet(verb, opts);
    const store = new MemoryStore(config.home);
    try {
      return run({ store, project: projectKeyOf(process.cwd(), config.home), args, opts, memoryOn: config.memory.enabled });
    } finally {
      store.close();
    }
  } catch (err) {
    return reportFatal(err);
  }
}
