// ToolHooks — WHY: the user's PreToolUse / PostToolUse hooks (.deerflowrc `hooks`, Claude Code's protocol) see every
// tool call the model makes. PreToolUse runs before the call; exit 2 or a "block"/"deny" answer refuses it and the
// hook's reason is the tool result the model reads (so it can change course). PostToolUse runs after it with the
// result; a block or added context is appended to the result the model reads (the call already happened).
// WHY here, outside SandboxAudit and ToolApproval: a hook's refusal of `git push` comes before anyone is asked about
// it, and no hook answer can get a call past the audit or an approval (those still run inside). Inside
// ToolResultSecretMasking and ToolErrorHandling: what a hook says to the model is masked like any result; so the
// result a PostToolUse hook gets is masked here (a hook that ships its input to a log would carry the raw key).
import { ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { type HookSetup, hooksFor, runHooks } from "../hooks/run-hooks.js";
import { maskCredentials } from "../sandbox/env-scrub.js";

type Content = ToolMessage["content"];

const textOf = (content: Content): string =>
  typeof content === "string" ? content : content.map((b) => (b && typeof b === "object" && "text" in b && typeof b.text === "string" ? b.text : "")).join("");

function appended(result: ToolMessage, note: string): ToolMessage {
  const { tool_call_id, name, status, artifact, id, additional_kwargs, response_metadata } = result;
  const content: Content = typeof result.content === "string" ? `${result.content}\n\n${note}` : ([...result.content, { type: "text", text: `\n\n${note}` }] as Content);
  return new ToolMessage({ content, tool_call_id, name, status, artifact, id, additional_kwargs, response_metadata });
}

export function toolHooksMiddleware(setup: HookSetup) {
  return createMiddleware({
    name: "ToolHooks",
    wrapToolCall: async (request, handler) => {
      const { toolCall } = request;
      const configurable = request.runtime.configurable as Record<string, unknown> | undefined;
      const threadId = typeof configurable?.thread_id === "string" ? configurable.thread_id : undefined;
      const base = { session_id: threadId, thread_id: threadId, tool_name: toolCall.name, tool_input: toolCall.args };
      const signal = request.runtime.signal;
      let preContext: string[] = [];
      if (hooksFor(setup, "PreToolUse", toolCall.name).length) {
        const pre = await runHooks(setup, "PreToolUse", base, { tool: toolCall.name, signal });
        if (pre.blocked || pre.stop) {
          const why = pre.blocked?.reason ?? pre.stop!;
          return new ToolMessage({
            tool_call_id: toolCall.id ?? "",
            name: toolCall.name,
            status: "error",
            content: `Refused by the user's PreToolUse hook (${pre.blocked?.command ?? "hook"}): ${why}`,
          });
        }
        preContext = pre.context;
      }
      const result = await handler(request);
      if (!ToolMessage.isInstance(result)) return result;
      const post = hooksFor(setup, "PostToolUse", toolCall.name).length
        ? await runHooks(setup, "PostToolUse", { ...base, tool_response: maskCredentials(textOf(result.content)) }, { tool: toolCall.name, signal })
        : { context: [] as string[], blocked: undefined };
      const notes = [
        ...preContext.map((c) => `PreToolUse hook: ${c}`),
        ...(post.blocked ? [`The user's PostToolUse hook (${post.blocked.command}) says: ${post.blocked.reason}`] : []),
        ...post.context.map((c) => `PostToolUse hook: ${c}`),
      ];
      return notes.length ? appended(result, notes.join("\n")) : result;
    },
  });
}
