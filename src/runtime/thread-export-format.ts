// The export document (thread-export.ts) as a file: JSON (the documented, versioned shape) or Markdown a person
// reads. Both come from the same masked, bounded document. WHY the Markdown is stripped of control characters and
// the JSON's escaped (jsonText): a tool result or a model answer may hold escape sequences, and an export is a file
// someone will `cat`.
import type { DelegationView } from "./events.js";
import { jsonText, stripControl } from "../vocabulary/terminal-text.js";
import type { ExportMessage, ThreadExport } from "./thread-export.js";

export const EXPORT_FORMATS = ["md", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The format a file name asks for (`.json` → json, anything else → md). */
export function formatOfFile(file: string): ExportFormat {
  return /\.json$/i.test(file) ? "json" : "md";
}

export function renderExport(doc: ThreadExport, format: ExportFormat): string {
  return format === "json" ? exportJson(doc) : exportMarkdown(doc);
}

export function exportJson(doc: ThreadExport): string {
  return `${jsonText(doc, 2)}\n`;
}

const clean = (text: string) => stripControl(text);

/** A fenced block whose fence no backtick run inside can close. */
function fenced(text: string, lang = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${lang}\n${clean(text)}\n${fence}`;
}

function messageBlock(m: ExportMessage, results: Map<string, ExportMessage>): string[] {
  const archived = m.archived ? ` (archived #${m.seq})` : "";
  if (m.role === "tool" && m.tool_call_id && results.get(m.tool_call_id) === m) return []; // printed under its call
  if (m.role === "user") return [`### You${archived}`, "", clean(m.text), ""];
  if (m.role === "assistant") {
    const out = [`### deerflow${archived}`, ""];
    if (m.text.trim()) out.push(clean(m.text), "");
    for (const c of m.tool_calls ?? []) {
      out.push(`#### Tool call: ${clean(c.name)}`, "", fenced(JSON.stringify(c.args, null, 2), "json"), "");
      const r = results.get(c.id);
      if (r) {
        out.push(`Result (${r.status ?? "ok"}):`, "", fenced(r.text), "");
        if (r.diff) out.push(`Diff of ${clean(r.diff.path)} (+${r.diff.added} −${r.diff.removed}):`, "", fenced(r.diff.patch, "diff"), "");
      }
    }
    return out;
  }
  return [`### ${clean(m.role)}${m.name ? ` (${clean(m.name)})` : ""}${archived}`, "", fenced(m.text), ""];
}

function delegationBlock(d: DelegationView): string[] {
  const verdict = d.verdict ? ` — ${d.verdict.verified ? "verified" : "not verified"}: ${clean(d.verdict.summary)}` : "";
  return [`### ${clean(d.description)} (${clean(d.subagent_type)}): ${d.status}${verdict}`, "", d.result_brief ? clean(d.result_brief) : "(no report)", ""];
}

export function exportMarkdown(doc: ThreadExport): string {
  const t = doc.thread;
  // A result is printed under its call; one whose call compaction archived stands alone.
  const calls = new Set(doc.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)));
  const results = new Map(doc.messages.filter((m) => m.role === "tool" && m.tool_call_id && calls.has(m.tool_call_id)).map((m) => [m.tool_call_id!, m]));
  const archived = doc.messages.filter((m) => m.archived).length;
  const u = doc.usage;
  const lines = [
    `# ${clean(t.title ?? "(untitled)").replace(/\n/g, " ")}`,
    "",
    `Thread \`${t.id}\` · ${t.status} · created ${t.created_at} · updated ${t.updated_at}${t.workspace ? ` · workspace ${clean(t.workspace)}` : ""}`,
    "",
    `Exported ${doc.exported_at} by deerflow (export format ${doc.version}). Secrets are masked; each text and tool argument is cut at ${doc.limits.text_max_chars.toLocaleString("en-US")} characters.${archived ? ` ${archived} message(s) were archived by compaction and are shown where they stood, marked "archived".` : ""}`,
    "",
    "## Conversation",
    "",
    ...doc.messages.flatMap((m) => messageBlock(m, results)),
  ];
  if (doc.todos.length)
    lines.push(
      "## Todos",
      "",
      ...doc.todos.map((td) => `- [${td.status === "completed" ? "x" : " "}] ${clean(td.content).replace(/\n/g, " ")}${td.status === "in_progress" ? " (in progress)" : ""}`),
      "",
    );
  if (doc.delegations.length) lines.push("## Subagent reports", "", ...doc.delegations.flatMap(delegationBlock));
  if (doc.notes) lines.push("## Notes", "", clean(doc.notes), "");
  if (doc.files.length) lines.push("## Presented files", "", ...doc.files.map((f) => `- ${clean(f)}`), "");
  const bySource = u.by_source ? Object.entries(u.by_source).map(([k, v]) => `${k} ${(v as { total_tokens?: number }).total_tokens ?? 0}`) : [];
  lines.push("## Usage", "", `${u.input_tokens} input + ${u.output_tokens} output = ${u.total_tokens} tokens${bySource.length ? ` (${bySource.join(", ")})` : ""}`, "");
  lines.push(
    "## Runs",
    "",
    "| run | status | stop reason | started | tokens (in/out) |",
    "| --- | --- | --- | --- | --- |",
    ...doc.runs.map((r) => `| ${r.id} | ${r.status} | ${r.stop_reason ?? ""} | ${r.started_at} | ${r.input_tokens}/${r.output_tokens} |`),
    "",
  );
  return lines.join("\n");
}
