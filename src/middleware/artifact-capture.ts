// ArtifactCapture (docs/architecture.md, Artifact handles; the seed's ArtifactEntry) — long references in tool results (paths, URLs of at least
// `minRefChars`) get short handles `art_xxxxxxxx`; the model sees the handle, and a tool call that passes a handle
// gets the real reference back.
// WHY beforeModel (not wrapToolCall, as the seed argues): it reads the normalized results stored in state whatever
// its wrap position, it never wraps a ToolMessage in a Command, and a result that reached state is captured even if
// the process died before the next call. It scans only what is new: every scanned ToolMessage (`result:`) and every
// AI message's tool calls (`call:`, for `consumed_by`) leave a short key in `tool_artifact_processed`, so a message
// is looked at once (a Set lookup). The entries live in `tool_artifacts`, not in messages: they survive compaction,
// checkpoint reload and resume.
// WHY wrapModelCall for the handles: the thread keeps the tool's real output; only the request shows handles
// (deterministic text, so the provider's prefix cache holds), and a handle whose message was compacted away is
// listed in a trailing reminder so the model can still use it.
// WHY wrapToolCall for the resolution, placed outside SandboxAudit: the audit and the approval prompt see the real
// path the tool will touch. A whole argument that looks like a handle but was never issued in this thread is refused
// with an error result (a model inventing handles must not reach a tool with "art_…" as a path).
import { createHash } from "node:crypto";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { StateSchema } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { THREAD_STATE_VALUES } from "../state/thread-state.js";
import type { ArtifactEntry } from "../state/types.js";
import { TRANSIENT_MARKER } from "../vocabulary/message-markers.js";
import { contentText } from "../vocabulary/message-text.js";
import { mapMessageText, mapStrings } from "./util/map-message-text.js";

export const ARTIFACT_HANDLE = /\bart_[0-9a-f]{8}\b/g;
const WHOLE_HANDLE = /^\s*art_[0-9a-f]{8}\s*$/;
export const DEFAULT_MIN_REF_CHARS = 120;
/** Handles listed in the reminder when their messages are gone (most recent first). */
const REMINDER_MAX = 20;

const URL_RE = /\bhttps?:\/\/[^\s"'<>`()[\]{}]+/g;
// An absolute path of at least two segments (virtual /mnt/user-data/… or a host path), or ./ ../ relative ones.
const PATH_RE = /(?<![\w:/.-])(?:\.{1,2})?(?:\/[\w.@+~%=,-]+){2,}\/?/g;

const MIME: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
  pdf: "application/pdf",
  json: "application/json",
  csv: "text/csv",
  md: "text/markdown",
  txt: "text/plain",
  html: "text/html",
  js: "text/javascript",
  ts: "text/x-typescript",
  py: "text/x-python",
  zip: "application/zip",
};

export interface ArtifactCaptureOptions {
  /** References at least this long get a handle. Default 120 characters. */
  minRefChars?: number;
}

const stateSchema = new StateSchema({
  tool_artifacts: THREAD_STATE_VALUES.tool_artifacts,
  tool_artifact_processed: THREAD_STATE_VALUES.tool_artifact_processed,
});

const sha = (text: string, n: number) => createHash("sha256").update(text).digest("hex").slice(0, n);

/** The ledger key of a scanned event (short: the list is stored with every checkpoint). */
const resultKey = (m: ToolMessage) => `result:${sha(`${m.tool_call_id}\0${m.id ?? ""}`, 12)}`;
const callKey = (m: AIMessage) => `call:${sha(`${m.id ?? ""}\0${(m.tool_calls ?? []).map((c) => c.id).join(",")}`, 12)}`;

/** The long references in `text`, in order, without duplicates. */
export function findLongRefs(text: string, minChars: number): { ref: string; type: "url" | "file" }[] {
  const out: { ref: string; type: "url" | "file" }[] = [];
  const seen = new Set<string>();
  for (const [re, type] of [
    [URL_RE, "url"],
    [PATH_RE, "file"],
  ] as const) {
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) {
      const ref = m[0].replace(/[.,;:]+$/, "");
      if (ref.length < minChars || seen.has(ref) || out.some((o) => o.ref.includes(ref))) continue;
      seen.add(ref);
      out.push({ ref, type });
    }
  }
  return out;
}

function describe(ref: string, type: "url" | "file"): Pick<ArtifactEntry, "artifact_type" | "display_name" | "mime_type"> {
  let name = ref;
  if (type === "url") {
    try {
      const u = new URL(ref);
      name = u.pathname.split("/").filter(Boolean).at(-1) ?? u.host;
    } catch {
      name = ref.split("/").filter(Boolean).at(-1) ?? ref;
    }
  } else {
    name = ref.split("/").filter(Boolean).at(-1) ?? ref;
  }
  const ext = /\.([A-Za-z0-9]{1,5})$/.exec(name)?.[1]?.toLowerCase();
  const mime = ext ? MIME[ext] : undefined;
  const artifact_type = type === "file" && mime?.startsWith("image/") ? "image" : type;
  return { artifact_type, display_name: name.length > 60 ? `${name.slice(0, 59)}…` : name, ...(mime ? { mime_type: mime } : {}) };
}

/** A handle for `ref` not taken by another reference (stable: the same reference always gets the same handle). */
function handleFor(ref: string, taken: Map<string, ArtifactEntry>): string {
  for (let salt = 0; ; salt++) {
    const handle = `art_${sha(salt ? `${salt}\0${ref}` : ref, 8)}`;
    const other = taken.get(handle);
    if (!other || other.real_ref === ref) return handle;
  }
}

/** What beforeModel writes: new entries, entries gaining a consumer, and the keys of what it scanned. */
export function captureArtifacts(
  messages: readonly BaseMessage[],
  entries: readonly ArtifactEntry[],
  processedList: readonly string[],
  minChars: number,
  now = () => new Date().toISOString(),
): { tool_artifacts: ArtifactEntry[]; tool_artifact_processed: string[] } | undefined {
  const processed = new Set(processedList);
  const byHandle = new Map(entries.map((e) => [e.handle, e]));
  const byRef = new Map(entries.map((e) => [e.real_ref, e]));
  const changed = new Map<string, ArtifactEntry>();
  const keys: string[] = [];
  for (const m of messages) {
    if (ToolMessage.isInstance(m)) {
      const key = resultKey(m);
      if (processed.has(key)) continue;
      keys.push(key);
      processed.add(key);
      findLongRefs(contentText(m.content), minChars).forEach(({ ref, type }, call_index) => {
        if (byRef.has(ref)) return;
        const handle = handleFor(ref, byHandle);
        const entry: ArtifactEntry = { handle, tool_name: m.name ?? "", tool_call_id: m.tool_call_id, call_index, ...describe(ref, type), real_ref: ref, created_at: now() };
        byHandle.set(handle, entry);
        byRef.set(ref, entry);
        changed.set(handle, entry);
      });
    } else if (AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0) {
      const key = callKey(m);
      if (processed.has(key)) continue;
      keys.push(key);
      processed.add(key);
      for (const call of m.tool_calls ?? []) {
        for (const handle of JSON.stringify(call.args ?? {}).match(ARTIFACT_HANDLE) ?? []) {
          const entry = byHandle.get(handle);
          if (!entry || !call.id || entry.consumed_by?.includes(call.id)) continue;
          const next = { ...entry, consumed_by: [...(entry.consumed_by ?? []), call.id] };
          byHandle.set(handle, next);
          changed.set(handle, next);
        }
      }
    }
  }
  if (keys.length === 0) return undefined;
  return { tool_artifacts: [...changed.values()], tool_artifact_processed: keys };
}

/** The request with every known reference shown as its handle, and a note on tool results that had one replaced. */
export function withHandles(messages: readonly BaseMessage[], entries: readonly ArtifactEntry[]): { messages: BaseMessage[]; shown: Set<string> } {
  const shown = new Set<string>();
  if (entries.length === 0) return { messages: [...messages], shown };
  // One pass per string: an alternation of the references, longest first (a reference that contains another is
  // replaced whole). A long history is re-sent on every call, so this is linear in its text, not text × entries.
  const byRef = new Map(entries.map((e) => [e.real_ref, e]));
  const any = new RegExp(
    [...byRef.keys()]
      .sort((a, b) => b.length - a.length)
      .map((r) => r.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("|"),
    "g",
  );
  const out = messages.map((m) => {
    const used: ArtifactEntry[] = [];
    const swap = (text: string) =>
      text.replace(any, (ref) => {
        const e = byRef.get(ref)!;
        if (!used.includes(e)) used.push(e);
        return e.handle;
      });
    let next = mapMessageText(m, swap);
    const seen = `${contentText(next.content)}\n${AIMessage.isInstance(next) && next.tool_calls?.length ? JSON.stringify(next.tool_calls) : ""}`;
    for (const h of seen.match(ARTIFACT_HANDLE) ?? []) shown.add(h);
    if (used.length > 0 && ToolMessage.isInstance(next) && typeof next.content === "string") {
      const list = used.map((e) => `${e.handle} = ${e.artifact_type} ${e.display_name}`).join("; ");
      const note = `\n[Long references above are shown as handles (${list}); pass a handle as the argument where the reference is needed.]`;
      next = new ToolMessage({
        id: next.id,
        name: next.name,
        content: `${next.content}${note}`,
        tool_call_id: next.tool_call_id,
        status: next.status,
        artifact: next.artifact,
        additional_kwargs: next.additional_kwargs,
        response_metadata: next.response_metadata,
      });
    }
    return next;
  });
  return { messages: out, shown };
}

function reminderOf(entries: readonly ArtifactEntry[], shown: Set<string>): HumanMessage | undefined {
  const hidden = entries
    .filter((e) => !shown.has(e.handle))
    .slice(-REMINDER_MAX)
    .reverse();
  if (hidden.length === 0) return undefined;
  const text = [
    "Artifact handles from earlier tool results (their messages were compacted); pass a handle as the argument where its reference is needed:",
    ...hidden.map((e) => `- ${e.handle}: ${e.artifact_type} ${e.display_name} (from ${e.tool_name || "a tool"})`),
  ].join("\n");
  return new HumanMessage({
    id: `artifact-handles-${sha(text, 8)}`,
    content: `<system-reminder>\n${text}\n</system-reminder>`,
    additional_kwargs: { [TRANSIENT_MARKER]: "artifact_handles" },
  });
}

/** Tools whose string arguments are shell commands: a reference put back there is quoted unless the model quoted it. */
const SHELL_TOOLS: ReadonlySet<string> = new Set(["bash"]);
const SHELL_SAFE = /^[A-Za-z0-9_./:@%+=,~-]+$/;

function shellQuote(ref: string): string {
  return SHELL_SAFE.test(ref) ? ref : `'${ref.replace(/'/g, `'\\''`)}'`;
}

/**
 * Tool-call arguments with known handles put back; an unknown whole-argument handle is reported. In a shell
 * command a reference (a URL from a tool result may hold `&`, `;` or `$`) is single-quoted, or escaped for the
 * quotes the handle already stood in, so putting it back never changes what the command does beyond naming it.
 */
export function resolveHandles(args: unknown, entries: readonly ArtifactEntry[], toolName = ""): { args: unknown; unknown: string[] } {
  const byHandle = new Map(entries.map((e) => [e.handle, e.real_ref]));
  const unknown: string[] = [];
  const shell = SHELL_TOOLS.has(toolName);
  const resolved = mapStrings(args, (s) => {
    if (WHOLE_HANDLE.test(s) && !byHandle.has(s.trim())) unknown.push(s.trim());
    return s.replace(ARTIFACT_HANDLE, (h, at: number) => {
      const ref = byHandle.get(h);
      if (ref === undefined) return h;
      if (!shell) return ref;
      const quote = /["']/.test(s[at - 1] ?? "") && s[at + h.length] === s[at - 1] ? s[at - 1] : undefined;
      // Inside "…" the shell still expands $ and ` (a URL may hold `$HOME`): escape them; inside '…' only ' ends it.
      if (quote === '"') return ref.replace(/[$`"\\]/g, "\\$&");
      if (quote === "'") return ref.replace(/'/g, `'\\''`);
      return shellQuote(ref);
    });
  });
  return { args: resolved, unknown };
}

function unknownHandleError(toolCall: { id?: string; name: string }, unknown: string[], entries: readonly ArtifactEntry[]): ToolMessage {
  const known = entries
    .slice(-10)
    .map((e) => `${e.handle} (${e.display_name})`)
    .join(", ");
  return new ToolMessage({
    tool_call_id: toolCall.id ?? "",
    name: toolCall.name,
    status: "error",
    content: `Error: ${unknown.join(", ")} ${unknown.length === 1 ? "is not an artifact handle" : "are not artifact handles"} of this thread, so the call was not run. ${known ? `Known handles: ${known}.` : "No handles were issued yet."} Pass the real path or URL, or a handle listed in a tool result.`,
  });
}

export function artifactCaptureMiddleware(options: ArtifactCaptureOptions = {}) {
  const minChars = options.minRefChars ?? DEFAULT_MIN_REF_CHARS;
  if (!Number.isInteger(minChars) || minChars < 16) throw new RangeError(`ArtifactCapture: minRefChars must be an integer of at least 16 (got ${String(minChars)}).`);
  type S = { messages?: BaseMessage[]; tool_artifacts?: ArtifactEntry[]; tool_artifact_processed?: string[] };
  return createMiddleware({
    name: "ArtifactCapture",
    stateSchema,
    beforeModel: (state) => {
      const s = state as S;
      return captureArtifacts(s.messages ?? [], s.tool_artifacts ?? [], s.tool_artifact_processed ?? [], minChars) as never;
    },
    wrapModelCall: (request, handler) => {
      const entries = (request.state as S).tool_artifacts ?? [];
      if (entries.length === 0) return handler(request);
      const { messages, shown } = withHandles(request.messages, entries);
      const reminder = reminderOf(entries, shown);
      return handler({ ...request, messages: reminder ? [...messages, reminder] : messages });
    },
    wrapToolCall: (request, handler) => {
      const entries = (request.state as S).tool_artifacts ?? [];
      if (!/\bart_[0-9a-f]{8}\b/.test(JSON.stringify(request.toolCall.args ?? {}))) return handler(request);
      const { args, unknown } = resolveHandles(request.toolCall.args, entries, request.toolCall.name);
      if (unknown.length > 0) return unknownHandleError(request.toolCall, unknown, entries);
      return handler({ ...request, toolCall: { ...request.toolCall, args: args as Record<string, unknown> } });
    },
  });
}
