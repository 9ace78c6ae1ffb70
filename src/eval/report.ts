// The eval's two outputs besides the JSON: the table of one report, and the comparison of two (--compare a b).
import { readFileSync } from "node:fs";
import { z } from "zod";
import { UsageError } from "../errors.js";
import { forTerminal } from "../vocabulary/terminal-text.js";
import type { AttemptResult } from "./run-task.js";
import type { EvalReport } from "./suite.js";

function table(head: string[], rows: string[][], right: ReadonlySet<number>): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (right.has(i) ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [line(head), rule, ...rows.map(line)].join("\n");
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const pct = (x: number) => `${Math.round(x * 100)}%`;

/** One report as a Markdown table (a row per attempt) and a summary line. */
export function formatReport(report: EvalReport): string {
  const rows = report.results.map((r) => [
    report.repeat > 1 ? `${r.task} #${r.attempt}` : r.task,
    r.kind,
    r.pass ? "pass" : "FAIL",
    String(r.turns),
    String(r.tokens.total_tokens),
    seconds(r.wall_ms),
    r.stop_reason,
    r.guard ?? "-",
  ]);
  const s = report.summary;
  const failures = report.results
    .filter((r) => !r.pass)
    // Checker output carries what the model wrote (test names, file text): no escape sequence reaches the terminal.
    .map((r) => `- ${r.task}${report.repeat > 1 ? ` #${r.attempt}` : ""}: ${forTerminal(r.failures.join("; ").split("\n")[0]!)}`);
  return [
    table(["task", "kind", "result", "turns", "tokens", "time", "stop reason", "guard"], rows, new Set([3, 4, 5])),
    "",
    `${s.passed}/${s.attempts} passed (${pct(s.pass_rate)}) with ${report.model}: ${s.turns} turns, ${s.total_tokens} tokens, ${seconds(s.wall_ms)}.`,
    ...(failures.length ? ["", "Failed:", ...failures] : []),
  ].join("\n");
}

/** What --compare reads of a report (a hand-edited or truncated one is refused by name, not crashed on). */
const count = z.number().finite().nonnegative();
const reportSchema = z.object({
  model: z.string(),
  started_at: z.string(),
  summary: z.object({ attempts: count, passed: count, pass_rate: count }),
  results: z.array(z.object({ task: z.string(), pass: z.boolean(), turns: count, tokens: z.object({ total_tokens: count }), wall_ms: count })),
});

export function readReport(file: string): EvalReport {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new UsageError(
      `Cannot read the eval report ${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}.`,
      "Write one with `deerflow eval --out <file>`.",
    );
  }
  const r = data as Partial<EvalReport>;
  if (r?.version !== 1 || !Array.isArray(r.results)) throw new UsageError(`${file} is not a deerflow eval report (version 1).`, "Write one with `deerflow eval --out <file>`.");
  const parsed = reportSchema.safeParse(r);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`${file} is not a complete deerflow eval report: ${issue.path.join(".")}: ${issue.message}.`, "Write one with `deerflow eval --out <file>`.");
  }
  return r as EvalReport;
}

interface TaskStats {
  attempts: number;
  passed: number;
  turns: number;
  tokens: number;
  ms: number;
}

function byTask(results: readonly AttemptResult[]): Map<string, TaskStats> {
  const out = new Map<string, TaskStats>();
  for (const r of results) {
    const s = out.get(r.task) ?? { attempts: 0, passed: 0, turns: 0, tokens: 0, ms: 0 };
    s.attempts++;
    s.passed += r.pass ? 1 : 0;
    s.turns += r.turns;
    s.tokens += r.tokens.total_tokens;
    s.ms += r.wall_ms;
    out.set(r.task, s);
  }
  return out;
}

/** Two reports side by side, per task: pass rate, mean turns, tokens and time, and what changed. */
export function formatComparison(a: EvalReport, b: EvalReport, names: [string, string]): string {
  const sa = byTask(a.results);
  const sb = byTask(b.results);
  const ids = [...new Set([...sa.keys(), ...sb.keys()])].sort();
  const cell = (s: TaskStats | undefined, f: (s: TaskStats) => string) => (s ? f(s) : "-");
  const mean = (n: number, s: TaskStats) => (n / s.attempts).toFixed(1);
  let better = 0;
  let worse = 0;
  const rows = ids.map((id) => {
    const x = sa.get(id);
    const y = sb.get(id);
    const rate = (s?: TaskStats) => (s ? s.passed / s.attempts : NaN);
    const delta = rate(y) - rate(x);
    const change = !x ? "new" : !y ? "gone" : delta > 0 ? "better" : delta < 0 ? "WORSE" : "";
    if (change === "better") better++;
    if (change === "WORSE") worse++;
    return [
      id,
      `${cell(x, (s) => `${s.passed}/${s.attempts}`)} → ${cell(y, (s) => `${s.passed}/${s.attempts}`)}`,
      `${cell(x, (s) => mean(s.turns, s))} → ${cell(y, (s) => mean(s.turns, s))}`,
      `${cell(x, (s) => mean(s.tokens, s))} → ${cell(y, (s) => mean(s.tokens, s))}`,
      `${cell(x, (s) => seconds(s.ms / s.attempts))} → ${cell(y, (s) => seconds(s.ms / s.attempts))}`,
      change,
    ];
  });
  return [
    `a: ${names[0]} (${a.model}, ${a.started_at})`,
    `b: ${names[1]} (${b.model}, ${b.started_at})`,
    "",
    table(["task", "passed", "turns", "tokens", "time", "change"], rows, new Set()),
    "",
    `passed ${a.summary.passed}/${a.summary.attempts} (${pct(a.summary.pass_rate)}) → ${b.summary.passed}/${b.summary.attempts} (${pct(b.summary.pass_rate)}); ${better} better, ${worse} worse.`,
  ].join("\n");
}
