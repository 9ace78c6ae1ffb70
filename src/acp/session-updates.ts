// One prompt turn's RunEvents as ACP session updates: the answer and the reasoning as chunks, each tool call as a
// `tool_call` then a `tool_call_update` (an edit's diff as `diff` content, a command's output as text, real paths
// as locations), the todo list as a `plan`, a clarification question as the answer. Pure translation per event; the
// only state is which tool calls were announced (a call's result must name the same id).
import type { PlanEntry, SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { RunEvent, TodoView } from "../runtime/events.js";
import { toHostPaths } from "../sandbox/virtual-paths.js";
import type { ThreadPaths } from "../sandbox/provider.js";
import { ASK_CLARIFICATION } from "../vocabulary/message-markers.js";
import { diffContentOf } from "./diff-content.js";
import { toolKindOf, toolLocationsOf, toolTitleOf } from "./tool-calls.js";

/** The text of a tool's result with the model's /mnt/user-data paths written as the workspace's real paths. */
export function hostText(text: string, workspace: string | undefined): string {
  return workspace ? toHostPaths(text, { workspace_path: workspace } as ThreadPaths) : text;
}

export function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

export function planOf(todos: readonly TodoView[]): SessionUpdate {
  const entries: PlanEntry[] = todos.map((t) => ({ content: t.content, priority: "medium", status: t.status }));
  return { sessionUpdate: "plan", entries };
}

/** What a clarification question reads as in the answer (its options listed, so the user can pick one). */
export function questionText(c: { question: string; options?: string[] }): string {
  return c.options?.length ? `${c.question}\n${c.options.map((o) => `- ${o}`).join("\n")}` : c.question;
}

export class TurnUpdates {
  /** Announced calls by id: their arguments, for the result's diff path. */
  private readonly calls = new Map<string, { name: string; args: unknown }>();
  private unnamed = 0;

  /** `workspace`: the thread's host directory (known once the run started). */
  constructor(public workspace: string | undefined) {}

  /** A result's call: by its id, else the latest open call of that tool (a call may come without an id). */
  private idOf(id: string | undefined, name: string): string {
    if (id) return id;
    const open = [...this.calls.entries()].filter(([, c]) => c.name === name).pop();
    return open?.[0] ?? `call_${++this.unnamed}`;
  }

  updates(e: RunEvent): SessionUpdate[] {
    switch (e.type) {
      case "run.started":
        this.workspace = e.workspace ?? this.workspace;
        return [];
      case "message.delta":
        return e.text ? [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: e.text } }] : [];
      case "message.reasoning":
        return e.text ? [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: e.text } }] : [];
      // A clarification is not a tool the user watches run: its question is the answer (below).
      case "tool.started":
        return e.name === ASK_CLARIFICATION ? [] : [this.started(e)];
      case "tool.completed":
        return e.name === ASK_CLARIFICATION ? [] : [this.completed(e)];
      case "todos.updated":
        return [planOf(e.todos)];
      case "clarification.requested":
        return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: questionText(e.clarification) } }];
      default:
        return [];
    }
  }

  private started(e: Extract<RunEvent, { type: "tool.started" }>): SessionUpdate {
    const toolCallId = e.tool_call_id ?? `call_${++this.unnamed}`;
    this.calls.set(toolCallId, { name: e.name, args: e.args });
    return {
      sessionUpdate: "tool_call",
      toolCallId,
      title: toolTitleOf(e.name, e.args),
      kind: toolKindOf(e.name),
      status: "in_progress",
      locations: toolLocationsOf(e.args, this.workspace),
      rawInput: e.args,
    };
  }

  private completed(e: Extract<RunEvent, { type: "tool.completed" }>): SessionUpdate {
    const toolCallId = this.idOf(e.tool_call_id, e.name);
    const call = this.calls.get(toolCallId);
    this.calls.delete(toolCallId);
    const path = toolLocationsOf(call?.args, this.workspace)[0]?.path;
    const output = hostText(e.output, this.workspace);
    const content = e.diff && e.status === "ok" ? diffContentOf(e.diff, this.workspace, path) : output ? [textContent(output)] : [];
    return { sessionUpdate: "tool_call_update", toolCallId, status: e.status === "ok" ? "completed" : "failed", content, rawOutput: { output } };
  }
}
