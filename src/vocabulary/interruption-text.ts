// The words of an interrupted run's kept work (runtime/interrupted-turn.ts): what the model reads, and how the views
// (`threads show`, the chat on resume) mark it.

/** What the model reads at the end of an answer the user interrupted (the views show INTERRUPTED_LINE instead). */
export const INTERRUPTED_NOTE = "[Interrupted by the user.]";

/** How views mark a kept answer. */
export const INTERRUPTED_LINE = "[interrupted by the user]";

/** The result of a tool call the user interrupted before it returned. */
export const INTERRUPTED_BY_USER_TOOL_TEXT = "[Interrupted by the user before this tool call returned a result.] It may not have run, or run only in part: check before relying on its effects.";
