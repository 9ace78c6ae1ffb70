// ToolOutputBudget — WHY wrapToolCall: a tool result enters the context once and is then re-sent on EVERY later
// model call of the thread, so a 200 kB log or file dump costs far more than its one read. Only wrapToolCall sees
// a result before it is written to `messages`: one over the budget (default 12 000 chars) is saved in full to
// `<outputs>/.tool-results/<tool>-<tool_call_id>.txt` and the ToolMessage keeps a synopsis — its head (~4000
// chars), its tail (~2000) and a line naming the saved file by its virtual path so the model can `read_file` the
// rest. Same tool_call_id, name, status and id: only the content changes. Without an outputs directory in
// `thread_data` (declared in our stateSchema: langchain hands a node only the fields its middleware declares), the
// head and tail are kept and the line says the middle was dropped.
// Decision: error results are budgeted too (status "error" kept) — an error the size of a log is still a log,
// and its head and tail are where the error is. Commands and non-text content (images…) pass through untouched.
// WHY its position (early, listed before ToolErrorHandling): the first middleware is the outermost wrapper, so it
// sees the final ToolMessage after every inner wrapper (errors turned into messages, audits, clarification).
import { dirname, join } from "node:path";
import { ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { hostWriteFile } from "../sandbox/host-write.js";
import { VIRTUAL_ROOT } from "../sandbox/paths.js";
import { THREAD_DATA_STATE } from "../state/thread-state.js";
import { TOOL_RESULT_BUDGET_CHARS } from "../vocabulary/tool-result-budget.js";

export const TOOL_RESULTS_DIR = ".tool-results";

export interface ToolOutputBudgetOptions {
  /** Results longer than this many characters are cut down. Default 12 000. */
  maxChars?: number;
  /** Characters kept from the start. Default 4000. */
  headChars?: number;
  /** Characters kept from the end. Default 2000. */
  tailChars?: number;
}

/** A file-name-safe version of a tool name or call id. */
function safePart(s: string, fallback: string): string {
  const cleaned = s
    .replace(/[^A-Za-z0-9_.-]+/g, "_")
    .replace(/^\.+/, "_")
    .slice(0, 100);
  return cleaned || fallback;
}

/** `text.slice(0, n)` that never ends on the high half of a surrogate pair. */
function headOf(text: string, n: number): string {
  let end = Math.min(n, text.length);
  const c = text.charCodeAt(end - 1);
  if (end > 0 && end < text.length && c >= 0xd800 && c <= 0xdbff) end--;
  return text.slice(0, end);
}

/** `text.slice(-n)` that never starts on the low half of a surrogate pair. */
function tailOf(text: string, n: number): string {
  if (n <= 0) return "";
  let start = Math.max(0, text.length - n);
  const c = text.charCodeAt(start);
  if (start > 0 && c >= 0xdc00 && c <= 0xdfff) start++;
  return text.slice(start);
}

/** The message's text if it is all text (a string, or only text blocks); undefined otherwise. */
function textContent(msg: ToolMessage): string | undefined {
  if (typeof msg.content === "string") return msg.content;
  const parts: string[] = [];
  for (const b of msg.content) {
    if (typeof b === "string") parts.push(b);
    else if (b && typeof b === "object" && (b as { type?: unknown }).type === "text") parts.push(String((b as { text?: unknown }).text ?? ""));
    else return undefined;
  }
  return parts.join("");
}

/** The synopsis: head, an omission marker, tail, and the closing line. */
export function synopsis(text: string, headChars: number, tailChars: number, closing: string): string {
  const head = headOf(text, headChars);
  const tail = tailOf(text, tailChars);
  const omitted = text.length - head.length - tail.length;
  return `${head}\n\n[... ${omitted} chars omitted ...]\n\n${tail}\n\n${closing}`;
}

export function toolOutputBudgetMiddleware(options: ToolOutputBudgetOptions = {}) {
  const maxChars = options.maxChars ?? TOOL_RESULT_BUDGET_CHARS;
  const headChars = Math.max(0, options.headChars ?? 4000);
  const tailChars = Math.max(0, options.tailChars ?? 2000);
  if (headChars + tailChars >= maxChars) throw new RangeError(`headChars + tailChars (${headChars + tailChars}) must be below maxChars (${maxChars}).`);

  return createMiddleware({
    name: "ToolOutputBudget",
    stateSchema: THREAD_DATA_STATE,
    wrapToolCall: async (request, handler) => {
      const result = await handler(request);
      if (!ToolMessage.isInstance(result)) return result;
      const text = textContent(result);
      if (text === undefined || text.length <= maxChars) return result;

      const { toolCall } = request;
      const toolName = result.name ?? toolCall.name;
      const callId = result.tool_call_id || toolCall.id || "";
      const outputs = (request.state as { thread_data?: { outputs_path?: string | null } | null }).thread_data?.outputs_path;
      let closing: string;
      if (outputs) {
        const file = `${safePart(toolName, "tool")}-${safePart(callId, `${Date.now()}`)}.txt`;
        try {
          // outputs/ is writable inside the sandbox: a planted link there must not carry the host's write out.
          await hostWriteFile({ base: dirname(outputs), dir: join(outputs, TOOL_RESULTS_DIR), name: file }, { data: text });
          closing = `[Full output (${text.length} chars) saved to ${VIRTUAL_ROOT}/outputs/${TOOL_RESULTS_DIR}/${file}; read it with read_file if you need more.]`;
        } catch (err) {
          const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
          closing = `[Output truncated: ${text.length} chars in total; the middle part was omitted and could not be saved (${why}).]`;
        }
      } else {
        closing = `[Output truncated: ${text.length} chars in total; the middle part was omitted (no outputs directory to save it to).]`;
      }
      return new ToolMessage({
        id: result.id,
        name: result.name,
        tool_call_id: result.tool_call_id,
        status: result.status,
        artifact: result.artifact,
        additional_kwargs: result.additional_kwargs,
        response_metadata: result.response_metadata,
        content: synopsis(text, headChars, tailChars, closing),
      });
    },
  });
}
