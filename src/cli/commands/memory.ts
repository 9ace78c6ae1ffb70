// `deerflow memory [list|add|edit|forget|clear|pending]`: the facts deerflow remembers across threads, as `/memory`
// shows them in the chat. The project is the working directory's (its repository root). Light on purpose: the
// memory store only, no model and no LangChain.
import { loadConfig } from "../../config/load.js";
import { refuseUntrusted } from "../../config/project-trust.js";
import { noteUntrusted } from "../untrusted-note.js";
import { UsageError } from "../../errors.js";
import { type AddOutcome, MemoryStore } from "../../memory/store.js";
import { projectKeyOf } from "../../memory/project.js";
import { forTerminal } from "../../vocabulary/terminal-text.js";
import type { GlobalOptions } from "../main.js";
import { reportFatal } from "../report-error.js";

export interface MemoryOptions extends GlobalOptions {
  json?: boolean;
  project?: boolean;
  all?: boolean;
}

function print(text: string): void {
  process.stdout.write(forTerminal(`${text}\n`));
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

export async function memoryCommand(action: string | undefined, args: string[], opts: MemoryOptions): Promise<number> {
  try {
    const config = loadConfig({ flags: { home: opts.home } });
    // Reading is harmless; changing facts would act on a store chosen without the project's "home".
    if (["list", "pending"].includes(action ?? "list")) noteUntrusted(config);
    else refuseUntrusted(config.untrusted);
    const project = projectKeyOf(process.cwd(), config.home);
    const store = new MemoryStore(config.home);
    try {
      switch (action ?? "list") {
        case "list": {
          const facts = store.list({ project: project || undefined, all: opts.all });
          if (opts.json) process.stdout.write(`${JSON.stringify(facts, null, 2)}\n`);
          else if (facts.length === 0) print("Nothing remembered yet.");
          else for (const f of facts) print(`#${f.id}  ${f.scope === "global" ? "global " : "project"}  ${f.text}${opts.all && f.project ? `  [${f.project}]` : ""}`);
          if (!config.memory.enabled && !opts.json) process.stderr.write("note: memory is off in .deerflowrc (memory.enabled: false): these facts are not shown to the model.\n");
          return 0;
        }
        case "pending": {
          const queued = store.pending();
          if (opts.json) process.stdout.write(`${JSON.stringify(queued.map(({ transcript: _t, ...q }) => q), null, 2)}\n`);
          else print(queued.length ? `${queued.length} finished run(s) wait for their facts to be extracted (at the next start).` : "No runs wait for extraction.");
          return 0;
        }
        case "add": {
          const text = args.join(" ");
          if (opts.project && !project) throw new UsageError("No project here.", "Run it inside the project's directory.");
          return outcome(store.add({ scope: opts.project ? "project" : "global", project, text }), "Remembered");
        }
        case "edit": {
          const [id, ...rest] = args;
          if (!rest.length) throw new UsageError("Usage: deerflow memory edit <n> <new text>");
          return outcome(store.edit(ids([id!])[0]!, rest.join(" ")), "Changed");
        }
        case "forget": {
          const n = store.forget(ids(args));
          if (n === 0) throw new UsageError("No such fact.", "See `deerflow memory list` for the numbers.");
          print(`Forgot ${n} fact${n === 1 ? "" : "s"}.`);
          return 0;
        }
        case "clear": {
          const n = store.clear();
          print(`Forgot all ${n} remembered fact${n === 1 ? "" : "s"}.`);
          return 0;
        }
        default:
          throw new UsageError(`Unknown memory action "${action}".`, "Use list, add, edit, forget, clear or pending.");
      }
    } finally {
      store.close();
    }
  } catch (err) {
    return reportFatal(err);
  }
}
