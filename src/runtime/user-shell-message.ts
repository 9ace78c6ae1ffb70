// `!cmd` in the chat joins the conversation, as Claude Code's `!` does: what the user ran and what it printed
// (bounded) is stored in the thread as a user message, so the model sees it on the next turn, and it is
// checkpointed with the thread (resume and `deerflow threads show` show it as a shell entry, not as typed text).
// WHY a user message: the user ran it, the model did not (a tool call would claim the model asked for it), and a
// message in the stored conversation, unlike a note added per request, is still there on every later turn and
// goes where the conversation goes (compaction, rewind). The marker (a harness key in additional_kwargs, never
// sent to providers) tells the views it is a shell entry; the output is data from the workspace, so the harness's
// own tags in it are neutralised here (InputSanitization leaves marked messages alone).
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { createSanitizer } from "../middleware/input-sanitization.js";

export const USER_SHELL_MARKER = "deerflow_user_shell";

/** Characters of output the model is given (the screen keeps its own, larger cap). */
export const USER_SHELL_MODEL_MAX_CHARS = 4_000;

export interface UserShellRun {
  command: string;
  output: string;
  exitCode: number | undefined;
  stoppedBy?: "timeout" | "abort";
}

const neutralise = createSanitizer();

function bounded(output: string): string {
  if (output.length <= USER_SHELL_MODEL_MAX_CHARS) return output;
  const half = USER_SHELL_MODEL_MAX_CHARS / 2;
  return `${output.slice(0, half)}\n[… ${output.length - USER_SHELL_MODEL_MAX_CHARS} characters left out …]\n${output.slice(-half)}`;
}

/** The stored message for one `!cmd`. */
export function userShellMessage(run: UserShellRun): HumanMessage {
  const status = run.stoppedBy === "timeout" ? "timed out" : run.exitCode === undefined ? "not run" : `exit code ${run.exitCode}`;
  const text = [`The user ran a shell command in the workspace (not you; for your information):`, `$ ${run.command}`, `(${status})`, "<output>", neutralise(bounded(run.output)), "</output>"].join(
    "\n",
  );
  return new HumanMessage({ content: text, additional_kwargs: { [USER_SHELL_MARKER]: { command: run.command, exit_code: run.exitCode ?? null } } });
}

/** A stored `!cmd` message's command, exit code and output, or undefined for any other message. */
export function userShellOf(m: BaseMessage): { command: string; exitCode: number | undefined; output: string } | undefined {
  const mark = (m.additional_kwargs as Record<string, unknown> | undefined)?.[USER_SHELL_MARKER] as { command?: unknown; exit_code?: unknown } | undefined;
  if (!mark || typeof mark.command !== "string") return undefined;
  const text = typeof m.content === "string" ? m.content : "";
  const output = /<output>\n([\s\S]*)\n<\/output>$/.exec(text)?.[1] ?? "";
  return { command: mark.command, exitCode: typeof mark.exit_code === "number" ? mark.exit_code : undefined, output };
}
