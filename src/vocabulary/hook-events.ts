// The hook events of `.deerflowrc` `hooks`, in Claude Code's names (its settings files' `hooks` key has this shape).
export const HOOK_EVENTS = ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop", "SessionStart", "PreCompact", "Notification"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Events whose `matcher` is read against a tool name (the others ignore it). */
export const TOOL_HOOK_EVENTS: readonly HookEvent[] = ["PreToolUse", "PostToolUse"];

/** Events whose `matcher` is read (tool events: the tool's name; PreCompact: its trigger, `manual` or `auto`). */
export const MATCHED_HOOK_EVENTS: readonly HookEvent[] = [...TOOL_HOOK_EVENTS, "PreCompact"];
