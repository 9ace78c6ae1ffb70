// An eval task: a throwaway repository, a request, and an automatic checker. On disk, one folder per task:
//   task.json   what to ask and how to check it (TaskFile below)
//   repo/       the repository the agent works in (copied, then committed as the first git commit)
//   dirty/      optional: files laid over repo/ AFTER the commit (the user's uncommitted work in progress)
//   check/      optional: hidden files copied in only when checking (tests the agent never saw)
//
// WHY a declarative checker first (with an optional script): most tasks are "the project's tests pass, these files
// are untouched, the answer says X"; a script is there for what does not fit (tests/check.mjs of the task).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { ConfigError, UsageError } from "../errors.js";
import { STOP_REASONS } from "../vocabulary/stop-reasons.js";

/** The kinds of task the suite covers (issue 20); a report groups by them. */
export const TASK_KINDS = [
  "fix-failing-test",
  "implement-to-spec",
  "rename-across-files",
  "add-cli-flag",
  "explain-no-change",
  "clarify-first",
  "tempts-destructive",
  "multi-step-todos",
  "split-subagents",
  "long-compaction",
  "safety",
] as const;

const commandSchema = z.array(z.string().min(1)).min(1);

/** A regular expression of the answer checks: refused when the task is loaded, not after the model's run. */
const regexSchema = z.string().refine(
  (s) => {
    try {
      new RegExp(s, "i");
      return true;
    } catch {
      return false;
    }
  },
  { message: "not a valid regular expression" },
);

const checkSchema = z
  .object({
    /** Commands run in the workspace after the run, in order; each must exit 0 ("node" is this Node). */
    run: z.array(commandSchema).default([]),
    /** Paths (relative to the workspace) that must be byte-identical to the task's repo/ (and dirty/) copy. */
    unchanged: z.array(z.string()).default([]),
    /** The whole workspace must be as it was (analysis and clarification tasks). */
    noEdits: z.boolean().default(false),
    /** Paths that must exist / must not exist afterwards. */
    present: z.array(z.string()).default([]),
    absent: z.array(z.string()).default([]),
    /** Regular expressions (case-insensitive) the final answer must match / must not match. */
    answerMatches: z.array(regexSchema).default([]),
    answerNotMatches: z.array(regexSchema).default([]),
    /** The run must end with one of these stop reasons (default: end_turn). */
    stopReason: z.array(z.enum(STOP_REASONS)).default(["end_turn"]),
    /** Tools the agent must have called (e.g. write_todos on multi-step work, task when the work splits). */
    usedTools: z.array(z.string()).default([]),
    /** The conversation must have been compacted at least once. */
    compacted: z.boolean().default(false),
    /** A script in the task folder, run with node in the workspace after the declarative checks; exit 0 = pass. */
    script: z.string().optional(),
    /** Seconds each check command may take. */
    timeoutSeconds: z.number().int().positive().default(120),
  })
  .strict();

const taskFileSchema = z
  .object({
    kind: z.enum(TASK_KINDS),
    /** One line for the report. */
    title: z.string().min(1),
    /** What the user types. */
    prompt: z.string().min(1),
    /** The run's time limit (the run ends with status timeout). */
    timeoutSeconds: z.number().int().positive().default(600),
    /** Model calls allowed (--max-turns). */
    maxTurns: z.number().int().positive().default(60),
    /** Overrides the model's context window (tokens): a small one makes a long task cross the compaction threshold. */
    contextWindow: z.number().int().positive().optional(),
    check: checkSchema,
  })
  .strict();

export type TaskFile = z.infer<typeof taskFileSchema>;
export type TaskCheck = TaskFile["check"];

export interface EvalTask extends TaskFile {
  id: string;
  /** The task's folder. */
  dir: string;
}

/** The suite shipped with deerflow (eval/tasks at the package root; dist/eval/ → ../../eval/tasks). */
export const DEFAULT_TASKS_DIR = fileURLToPath(new URL("../../eval/tasks", import.meta.url));

/** One task folder → its definition; a bad task.json is a ConfigError naming the file and the key. */
export function loadTask(dir: string, id: string): EvalTask {
  const file = join(dir, "task.json");
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new ConfigError(`${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : `not valid JSON (${(e as Error).message})`}.`, { file });
  }
  const parsed = taskFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${file}: ${issue.path.join(".") || "(top level)"}: ${issue.message}.`, { file, keyPath: issue.path.join(".") });
  }
  if (!existsSync(join(dir, "repo"))) throw new ConfigError(`${dir}: a task needs a repo/ folder (the repository the agent works in).`, { file });
  if (parsed.data.check.script && !existsSync(join(dir, parsed.data.check.script))) {
    throw new ConfigError(`${file}: check.script "${parsed.data.check.script}" does not exist in the task folder.`, { file, keyPath: "check.script" });
  }
  return { ...parsed.data, id, dir };
}

/** The ids of the tasks under `root`: its folders holding a task.json, sorted. */
export function taskIds(root: string): string[] {
  return readdirSync(root)
    .filter((n) => existsSync(join(root, n, "task.json")))
    .sort();
}

/** Every task under `root` (folders holding a task.json, sorted by id), or those named in `only`. */
export function loadTasks(root: string, only?: readonly string[]): EvalTask[] {
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new UsageError(`No eval tasks at ${root}.`, "Pass --suite <dir> with one folder per task (task.json + repo/).");
  const ids = taskIds(root);
  if (only?.length) {
    const unknown = only.filter((id) => !ids.includes(id));
    if (unknown.length) throw new UsageError(`Unknown eval task${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}.`, `Known tasks: ${ids.join(", ")}.`);
    return only.map((id) => loadTask(join(root, id), id));
  }
  return ids.map((id) => loadTask(join(root, id), id));
}
