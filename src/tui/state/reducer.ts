// The TUI's one state transition: run events and UI actions in, the next ChatState out (pure).
// Invariant: a thing is either live (streaming text, running tools, delegations, prompts) or committed to the
// transcript — never both — so the <Static> transcript only ever grows and nothing on it is redrawn.
import { hookNotice } from "../../vocabulary/hook-notice.js";
import { compactionNotice } from "../../vocabulary/compaction-notice.js";
import { unhandled } from "../../vocabulary/exhaustive.js";
import { presentedLine } from "../../vocabulary/presented-files.js";
import { keptFilesLine } from "../../vocabulary/kept-files.js";
import { openedDelegations } from "./open-delegations.js";
import type { RunEvent } from "../../runtime/events.js";
import type { ApprovalMode } from "../../vocabulary/approval-modes.js";
import type { ChatState, GoalView, ModelOption, NoticeLevel, StatusView, ToolCallView, TranscriptItem, TrustPromptView } from "./types.js";

/** A transcript item before it gets its id. */
export type NewItem = TranscriptItem extends infer T ? (T extends { id: string } ? Omit<T, "id"> : never) : never;

export interface RunEndInfo {
  status: "success" | "error" | "timeout" | "interrupted";
  stop_reason: string;
  usage: { input_tokens: number; output_tokens: number; total_tokens: number };
  thread_usage?: { input_tokens: number; output_tokens: number; total_tokens: number };
}

export type UiAction =
  | { type: "ui.ready"; status: Partial<StatusView> }
  | { type: "ui.status"; status: Partial<StatusView> }
  | { type: "ui.user"; text: string }
  | { type: "ui.run.begin" }
  | { type: "ui.run.cancelling" }
  | { type: "ui.run.end"; end?: RunEndInfo; goal?: GoalView | null; error?: string }
  | { type: "ui.notice"; level: NoticeLevel; text: string }
  | { type: "ui.item"; item: NewItem }
  | { type: "ui.items"; items: NewItem[] }
  | { type: "ui.thread"; clarification: ChatState["clarification"]; todos: ChatState["todos"]; notes?: string; status: Partial<StatusView> }
  | { type: "ui.todos.toggle" }
  | { type: "ui.tool.expand" }
  | { type: "ui.approval.answered"; id: string }
  | { type: "ui.clarification.answered" }
  | { type: "ui.exit.arm"; armed: boolean }
  | { type: "ui.hint"; text?: string }
  | { type: "ui.queued"; queued: string[] }
  | { type: "ui.model.picker"; options: ModelOption[] | null; switching?: boolean }
  | { type: "ui.trust.prompt"; prompt: TrustPromptView | null }
  | { type: "ui.clear" };

export type ChatAction = RunEvent | UiAction;

/** Tool calls the transcript shows in another form (the question itself). */
const HIDDEN_TOOLS = new Set(["ask_clarification"]);

export function initialState(status: Partial<StatusView> = {}): ChatState {
  return {
    items: [],
    streaming: "",
    thinking: "",
    tools: [],
    todos: [],
    todosExpanded: false,
    notes: "",
    delegations: [],
    clarification: null,
    modelPicker: null,
    trustPrompt: null,
    approvals: [],
    run: null,
    status: {
      model: "",
      usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
      goal: null,
      approvalMode: "ask" as ApprovalMode,
      ...status,
    },
    ready: false,
    exitArmed: false,
    queued: [],
    seq: 0,
  };
}

function append(state: ChatState, ...items: NewItem[]): ChatState {
  if (items.length === 0) return state;
  let seq = state.seq;
  const added = items.map((item) => ({ ...item, id: `i${++seq}` }) as TranscriptItem);
  return { ...state, items: [...state.items, ...added], seq };
}

function withoutRetry(state: ChatState): ChatState {
  return state.run?.retry ? { ...state, run: { ...state.run, retry: undefined } } : state;
}

function finishTool(tool: ToolCallView, status: ToolCallView["status"], output: string): ToolCallView {
  return { ...tool, status, output, endedAt: Date.now() };
}

/** Commits what is still live when a run ends: partial answer, unfinished tools, the delegation summary. */
function endRun(state: ChatState, a: Extract<UiAction, { type: "ui.run.end" }>): ChatState {
  const items: NewItem[] = [];
  const interrupted = a.end?.status === "interrupted" || (a.end === undefined && state.run?.cancelling === true);
  if (state.streaming.trim()) items.push({ kind: "assistant", text: state.streaming });
  for (const t of state.tools) items.push({ kind: "tool", tool: finishTool(t, "error", interrupted ? "cancelled" : "not finished") });
  if (state.delegations.length > 0) items.push({ kind: "delegations", delegations: state.delegations });
  if (a.error) items.push({ kind: "notice", level: interrupted ? "warning" : "error", text: a.error });
  else if (a.end && state.run && (a.end.status !== "success" || !["end_turn", "clarification"].includes(a.end.stop_reason))) {
    items.push({ kind: "run-end", status: a.end.status, stop_reason: a.end.stop_reason as never, usage: a.end.usage, elapsedMs: Date.now() - state.run.startedAt });
  }
  const next = append(state, ...items);
  return {
    ...next,
    streaming: "",
    thinking: "",
    tools: [],
    delegations: [],
    approvals: [],
    run: null,
    hint: undefined,
    status: {
      ...next.status,
      usage: a.end?.thread_usage ?? next.status.usage,
      goal: a.goal === undefined ? next.status.goal : a.goal,
    },
  };
}

export function reduce(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    // ---- run events
    case "run.started":
      return { ...state, run: { ...(state.run ?? { startedAt: Date.now() }), runId: action.run_id }, status: { ...state.status, threadId: action.thread_id } };
    case "message.delta":
      return { ...withoutRetry(state), streaming: state.streaming + action.text };
    case "message.reasoning":
      return { ...withoutRetry(state), thinking: state.thinking + action.text };
    case "message.completed": {
      state = withoutRetry(state);
      const text = action.text.trim() ? action.text : state.streaming;
      const thought = state.thinking.trim() ? append(state, { kind: "thinking", text: state.thinking }) : state;
      const next = text.trim() ? append(thought, { kind: "assistant", text }) : thought;
      // The context fill: what this call was sent plus its answer (the next request starts from both).
      const u = action.usage;
      const status = u ? { ...next.status, context: { tokens: u.input_tokens + u.output_tokens, estimated: u.estimated === true } } : next.status;
      return { ...next, streaming: "", thinking: "", status };
    }
    case "tool.started": {
      if (HIDDEN_TOOLS.has(action.name)) return state;
      const tool: ToolCallView = { id: action.tool_call_id ?? `${action.name}-${state.seq}`, name: action.name, args: action.args, status: "running", output: "", startedAt: Date.now() };
      return { ...state, tools: [...state.tools, tool] };
    }
    case "tool.completed": {
      if (HIDDEN_TOOLS.has(action.name)) return state;
      const running = state.tools.find((t) => t.id === action.tool_call_id);
      const done = finishTool(running ?? { id: action.tool_call_id ?? action.name, name: action.name, args: {}, status: "running", output: "" }, action.status, action.output);
      const tool = action.diff ? { ...done, diff: action.diff } : done;
      const next = append(state, { kind: "tool", tool });
      return { ...next, tools: state.tools.filter((t) => t !== running), lastTool: tool };
    }
    case "todos.updated":
      return { ...state, todos: action.todos };
    case "notes.updated":
      return { ...state, notes: action.notes };
    case "files.presented":
      return append(state, { kind: "notice", level: "info", text: presentedLine(action.files) });
    case "files.kept":
      return append(state, { kind: "notice", level: "warning", text: keptFilesLine(action.files) });
    case "delegation.updated": {
      const byId = new Map(state.delegations.map((d) => [d.id, d]));
      for (const d of action.delegations) byId.set(d.id, { ...byId.get(d.id), ...d });
      return { ...state, delegations: [...byId.values()] };
    }
    // The question is live (the prompt) until answered; then it is committed just before the answer.
    case "clarification.requested":
      return { ...state, clarification: action.clarification };
    case "approval.requested":
      return { ...state, approvals: [...state.approvals, action] };
    case "goal.evaluated": {
      const goal = state.status.goal;
      const e = action.evaluation;
      const next = append(state, { kind: "notice", level: "info", text: `Goal check: ${e.satisfied ? "met" : `not met yet (${e.blocker.replace(/_/g, " ")})`} — ${e.reason}` });
      return goal ? { ...next, status: { ...next.status, goal: { ...goal, continuation_count: action.continuation_count } } } : next;
    }
    case "goal.continued":
      return append(state, { kind: "notice", level: "info", text: `Continuing toward the goal (continuation ${action.continuation_count}): ${action.reason}` });
    case "model.retry": {
      // Transient: one status line that changes in place; the final error (if any) is what the transcript keeps.
      const retry = { attempt: action.attempt, max_attempts: action.max_attempts, reason: action.reason, until: Date.now() + action.delay_ms };
      return { ...state, run: { ...(state.run ?? { startedAt: Date.now() }), retry } };
    }
    case "context.compacted": {
      const next = append(state, { kind: "notice", level: action.summary_failed ? "warning" : "info", text: compactionNotice(action) });
      return { ...next, status: { ...next.status, context: { tokens: action.tokens_after, estimated: true } } };
    }
    case "error":
      return append(state, { kind: "notice", level: "error", text: action.message });
    case "hook.run": {
      const text = hookNotice(action);
      return text ? append(state, { kind: "notice", level: action.status === "error" ? "warning" : "info", text }) : state;
    }
    case "sandbox.warning":
    case "snapshot.warning":
      return append(state, { kind: "notice", level: "warning", text: action.message });
    case "mcp.failed":
      return append(state, { kind: "notice", level: "warning", text: `MCP server "${action.server}" is not available: ${action.message}. Continuing without it (/mcp shows the servers).` });
    case "run.completed":
      return { ...state, status: { ...state.status, usage: action.thread_usage, threadId: action.thread_id } };

    // ---- UI actions
    case "ui.ready":
      return { ...state, ready: true, status: { ...state.status, ...action.status } };
    case "ui.status":
      return { ...state, status: { ...state.status, ...action.status } };
    case "ui.user": {
      const asked: NewItem[] = state.clarification ? [{ kind: "clarification", clarification: state.clarification }] : [];
      return { ...append(state, ...asked, { kind: "user", text: action.text }), clarification: null, exitArmed: false };
    }
    case "ui.run.begin":
      return { ...state, run: { startedAt: Date.now() }, streaming: "", thinking: "", tools: [], delegations: [] };
    case "ui.run.cancelling":
      return state.run ? { ...state, run: { ...state.run, cancelling: true } } : state;
    case "ui.run.end":
      return endRun(state, action);
    case "ui.notice":
      return append(state, { kind: "notice", level: action.level, text: action.text });
    case "ui.item":
      return append(state, action.item);
    case "ui.items":
      return append(state, ...action.items);
    case "ui.thread":
      return { ...state, clarification: action.clarification, todos: action.todos, notes: action.notes ?? "", status: { ...state.status, ...action.status } };
    case "ui.todos.toggle": {
      const opened = state.run ? undefined : openedDelegations(state.items);
      return { ...(opened ? append(state, opened) : state), todosExpanded: !state.todosExpanded };
    }
    case "ui.tool.expand":
      return state.lastTool ? append(state, { kind: "tool", tool: state.lastTool, expanded: true }) : append(state, { kind: "notice", level: "info", text: "No tool output to show yet." });
    case "ui.approval.answered":
      return { ...state, approvals: state.approvals.filter((a) => a.id !== action.id) };
    case "ui.clarification.answered":
      return { ...state, clarification: null };
    case "ui.exit.arm":
      return { ...state, exitArmed: action.armed };
    case "ui.hint":
      return { ...state, hint: action.text };
    case "ui.queued":
      return { ...state, queued: action.queued };
    case "ui.model.picker":
      return { ...state, modelPicker: action.options, modelPickerSwitch: action.switching };
    case "ui.trust.prompt":
      return { ...state, trustPrompt: action.prompt };
    case "ui.clear":
      return {
        ...state,
        streaming: "",
        thinking: "",
        tools: [],
        todos: [],
        notes: "",
        delegations: [],
        clarification: null,
        approvals: [],
        lastTool: undefined,
        status: { ...state.status, threadId: undefined, title: undefined, goal: null, context: undefined, usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 } },
      };
    default:
      return unhandled(action, state);
  }
}
