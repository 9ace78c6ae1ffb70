// Regular expressions the model writes, run by JavaScript: grep's patterns in the walker (ripgrep not installed,
// the shell unconfined, or a pattern only JavaScript understands, such as look-around) and glob patterns
// (globToRegExp). V8's regexes backtrack: `(a+)+$`, or a glob with ten stars, against a long line takes minutes to
// centuries, and a synchronous test() blocks the event loop, so nothing (esc, Ctrl+C, a time limit) could stop it.
//  - V8 moves a regex to its linear-time engine after excessive backtracking when this flag is set. That covers the
//    globs; the linear engine of Node 20 has no case-insensitive mode, look-around or backreferences, so grep's
//    patterns (case-insensitive by default) need the second guard:
//  - grep's matching runs in batches inside node:vm with a time budget: V8 interrupts a regex mid-match there.
import { setFlagsFromString } from "node:v8";
import vm from "node:vm";

setFlagsFromString("--enable-experimental-regexp-engine-on-excessive-backtracks");

/** How long one batch of files may take to match before the search is stopped as backtracking. */
export const MATCH_BATCH_BUDGET_MS = 5_000;
/**
 * Test-facing only: a shorter budget, so a test of the stop does not wait out 5 s twice. An environment variable, not a
 * flag or a .deerflowrc key; it can only shorten the budget (a larger value is ignored), never lift the guard.
 */
export const MATCH_BUDGET_ENV = "DEERFLOW_TEST_ONLY_MATCH_BUDGET_MS";

/** The budget of one batch: MATCH_BATCH_BUDGET_MS, or a shorter whole number of ms from MATCH_BUDGET_ENV. */
export function matchBatchBudgetMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env[MATCH_BUDGET_ENV]);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, MATCH_BATCH_BUDGET_MS) : MATCH_BATCH_BUDGET_MS;
}

// The regex is built and the loop defined inside the context once per search: a regex of the outer context called
// from inside it, or a loop compiled per batch, made the walker's grep ten times slower.
const DEFINE = new vm.Script(`
  const re = new RegExp(source, flags);
  function match() {
    const hits = [];
    for (let f = 0; f < files.length; f++) {
      const lines = files[f];
      for (let i = 0; i < lines.length; i++) {
        if (i === lines.length - 1 && lines[i] === "") break;
        if (re.test(lines[i])) hits.push(f, i);
      }
    }
    return hits;
  }`);
const MATCH = new vm.Script("match()");

/**
 * A matcher for one search: `match(files, budgetMs)` gives the [file, line] index pairs of the matching lines of
 * each file (a last empty line is not a line), or "timeout" when the batch ran past the budget.
 */
export function boundedMatcher(re: RegExp): (files: readonly (readonly string[])[], budgetMs: number) => [number, number][] | "timeout" {
  const context = vm.createContext({ source: re.source, flags: re.flags, files: [] as readonly (readonly string[])[] });
  DEFINE.runInContext(context);
  return (files, budgetMs) => {
    context.files = files;
    let flat: number[];
    try {
      flat = MATCH.runInContext(context, { timeout: Math.max(1, Math.floor(budgetMs)) }) as number[];
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return "timeout";
      throw err;
    } finally {
      context.files = [];
    }
    const out: [number, number][] = [];
    for (let k = 0; k < flat.length; k += 2) out.push([flat[k]!, flat[k + 1]!]);
    return out;
  };
}
