// ToolResultSecretMasking — WHY: what a tool returns goes to the model provider. The sandbox hides where credentials
// are kept, and without bubblewrap the command audit asks before reading there, but both go by path: a symlink a
// repository ships (`docs-key -> ../.ssh/id_rsa`), a glob, a loop variable, /proc/<pid>/task/<tid>/environ, or a
// credential file no list names (~/.codex/auth.json) still reached the model in the fifth adversarial pass. Masking
// the result catches them whatever the spelling: key shapes and private-key blocks (vocabulary/secret-shapes.ts)
// and the exact values of the credentials deerflow was started with (OPENAI_API_KEY and other key/token/secret
// variables: the one list in sandbox/env-scrub.ts).
// WHY wrapToolCall on every tool (MCP included): the mask applies to the ToolMessage before it is stored or sent.
// The cost: a file holding a key reads with "***" in its place, so the model cannot edit that exact line; writing a
// key the user dictates still works (arguments are not touched).
import { ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { credentialValues } from "../sandbox/env-scrub.js";
import { maskSecrets } from "../vocabulary/secret-shapes.js";

type Content = ToolMessage["content"];

function maskContent(content: Content, known: readonly string[]): Content {
  if (typeof content === "string") return maskSecrets(content, known);
  return content.map((block) =>
    block && typeof block === "object" && block.type === "text" && typeof block.text === "string" ? { ...block, text: maskSecrets(block.text, known) } : block,
  ) as Content;
}

/** `known`: secret values to mask besides the shapes (default: the credential variables of this process). */
export function toolResultSecretMaskingMiddleware(known: readonly string[] = credentialValues()) {
  return createMiddleware({
    name: "ToolResultSecretMasking",
    wrapToolCall: async (request, handler) => {
      const result = await handler(request);
      if (!ToolMessage.isInstance(result)) return result;
      const masked = maskContent(result.content, known);
      if (JSON.stringify(masked) === JSON.stringify(result.content)) return result;
      const { tool_call_id, name, status, artifact, id, additional_kwargs, response_metadata } = result;
      return new ToolMessage({ content: masked, tool_call_id, name, status, artifact, id, additional_kwargs, response_metadata });
    },
  });
}
