// read_history — reads back the original messages compaction archived (the summary names their range). By range
// (`from`/`to`, 1-based archive positions) or by search (a substring of the text or tool name); the output is
// bounded so one call cannot refill the context it was compacted to free.
import { tool } from "langchain";
import { z } from "zod";
import type { ArchivedMessage, MessageArchiveLike } from "../persistence/message-archive.js";
import { readRunConfigurable } from "../vocabulary/configurable.js";

export const READ_HISTORY_MAX_CHARS = 12_000;
const MAX_MESSAGES = 20;

function format(rows: ArchivedMessage[], maxChars: number): string {
  const out: string[] = [];
  let used = 0;
  for (const r of rows) {
    const head = `#${r.seq} [${r.role}${r.name ? ` ${r.name}` : ""}]`;
    const room = Math.max(200, Math.floor((maxChars - used) / Math.max(1, rows.length - out.length)));
    const body = r.text.length > room ? `${r.text.slice(0, room)} […${r.text.length - room} more chars; read #${r.seq} alone for more]` : r.text;
    out.push(`${head} ${body}`);
    used += head.length + body.length + 2;
    if (used >= maxChars) break;
  }
  return out.join("\n\n");
}

export function createReadHistoryTool(archive: MessageArchiveLike) {
  return tool(
    async ({ from, to, search }, runtime) => {
      const threadId = readRunConfigurable((runtime as { configurable?: Record<string, unknown> } | undefined)?.configurable).threadId ?? "ephemeral";
      const total = await archive.count(threadId);
      if (total === 0) return "Nothing is archived in this thread yet: the whole conversation is still in context.";
      if (search !== undefined && search.trim() !== "") {
        const rows = await archive.search(threadId, search.trim(), MAX_MESSAGES);
        if (rows.length === 0) return `No archived message matches "${search}" (${total} archived).`;
        return `${rows.length} archived message(s) match "${search}" (of ${total}):\n\n${format(rows, READ_HISTORY_MAX_CHARS)}`;
      }
      if (from !== undefined && to !== undefined && to < from) throw new Error(`"to" (#${to}) is before "from" (#${from}): give from ≤ to (at most ${MAX_MESSAGES} at a time).`);
      const start = Math.max(1, from ?? Math.max(1, total - 4));
      const end = Math.min(total, to ?? start + 4, start + MAX_MESSAGES - 1);
      if (start > total) throw new Error(`The archive holds messages #1–#${total}; #${start} does not exist.`);
      const rows = await archive.range(threadId, start, end);
      return `Archived messages #${start}–#${end} of ${total}:\n\n${format(rows, READ_HISTORY_MAX_CHARS)}`;
    },
    {
      name: "read_history",
      description:
        "Read original messages of this conversation that were compacted into the summary (archived, numbered from #1). " +
        "Give from/to (at most 20 at a time) or a search string. Output is capped at about 12 000 characters.",
      schema: z.object({
        from: z.number().int().min(1).optional().describe("First archived message number (1-based)."),
        to: z.number().int().min(1).optional().describe("Last archived message number (inclusive)."),
        search: z.string().optional().describe("Find archived messages containing this text (case-insensitive)."),
      }),
    },
  );
}
