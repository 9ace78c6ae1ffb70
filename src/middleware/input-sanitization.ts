// InputSanitization — neutralises text in the user's messages that imitates the harness's own control tags
// (`<system-reminder>`, `</system-reminder>`, `<uploaded_files>`, `<system>`) and guard markers (`[FORCED STOP]`,
// `[LOOP DETECTED]`, `[TOKEN BUDGET EXCEEDED]`, `[SUBAGENT LIMIT REACHED]`), so a pasted file or web page cannot
// pose as the harness: a tag's `<` becomes `&lt;` (`&lt;system-reminder>`), a marker's brackets become
// parentheses (`(FORCED STOP)`). Anything else is left byte-for-byte alone.
// WHY wrapModelCall (request-only) and not beforeModel/beforeAgent: the stored message stays what the user typed
// (the TUI, resume, titles and memory show the real text); only what the MODEL reads is neutralised.
// WHY every user message by default (scope "all") and not only the last one: the rewrite is request-only, so a
// "last message only" rule would send an earlier turn's injection unescaped as soon as the user writes again —
// the old paste would come alive, and the request prefix would change between runs (one changed early message
// re-bills the whole conversation in the provider's prefix cache). Escaping every user message is a pure function
// of the stored text: the same history always produces the same bytes. `scope: "last"` is available.
// What counts as a user message: a HumanMessage of the STORED conversation (its id is in `state.messages`)
// without a harness marker (an `additional_kwargs` key starting with `deerflow_`). Messages other middleware add
// to the request only (LoopDetection's reminder, Uploads' `<uploaded_files>` note, DynamicContext's reminder) are
// never stored under their id and are not touched, so the real tags keep working whatever the list order.
// WHY its position (early, before Uploads/LoopDetection/DynamicContext in the list): the first middleware is the
// outermost wrapper, so it sees the request before the others add their genuine tags — and the stored-id rule
// above keeps it correct even when listed later.
import { isHarnessMessage } from "../vocabulary/message-markers.js";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";

export const CONTROL_TAGS = ["system-reminder", "uploaded_files", "system"] as const;
export const CONTROL_MARKERS = ["FORCED STOP", "LOOP DETECTED", "TOKEN BUDGET EXCEEDED", "SUBAGENT LIMIT REACHED"] as const;

export interface InputSanitizationOptions {
  /** "all" (default): every stored user message; "last": only the latest one. */
  scope?: "all" | "last";
  /** More tag names to neutralise (e.g. "memory"). Matched case-insensitively, opening and closing. */
  extraTags?: readonly string[];
  /** More bracketed markers to neutralise (the text between the brackets, e.g. "GOAL MET"). */
  extraMarkers?: readonly string[];
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A function that neutralises the given tags and markers in a text (idempotent). */
export function createSanitizer(tags: readonly string[] = CONTROL_TAGS, markers: readonly string[] = CONTROL_MARKERS): (text: string) => string {
  // Longest names first so "system-reminder" wins over "system"; the tag name must end there (`<systemd>` is not
  // `<system>`); spaces, a slash and attributes are tolerated (`< /System-Reminder foo="x">`).
  const tagAlt = [...tags]
    .sort((a, b) => b.length - a.length)
    .map(escapeRe)
    .join("|");
  const tagRe = new RegExp(`<(?=\\s*/?\\s*(?:${tagAlt})(?![\\w-])[^<>]*>)`, "gi");
  const markerAlt = [...markers]
    .sort((a, b) => b.length - a.length)
    .map((m) => m.trim().split(/\s+/).map(escapeRe).join("\\s+"))
    .join("|");
  const markerRe = new RegExp(`\\[\\s*(${markerAlt})\\s*\\]`, "gi");
  return (text) => text.replace(tagRe, "&lt;").replace(markerRe, "($1)");
}

/** The message with its text (string content or text blocks) sanitised; the same object when nothing changed. */
function sanitizeMessage(m: BaseMessage, sanitize: (t: string) => string): BaseMessage {
  if (typeof m.content === "string") {
    const text = sanitize(m.content);
    return text === m.content ? m : new HumanMessage({ id: m.id, name: m.name, content: text, additional_kwargs: m.additional_kwargs, response_metadata: m.response_metadata });
  }
  let changed = false;
  const blocks = m.content.map((b) => {
    if (b && typeof b === "object" && (b as { type?: unknown }).type === "text" && typeof (b as { text?: unknown }).text === "string") {
      const text = sanitize((b as { text: string }).text);
      if (text !== (b as { text: string }).text) {
        changed = true;
        return { ...b, text };
      }
    }
    return b;
  });
  return changed ? new HumanMessage({ id: m.id, name: m.name, content: blocks as HumanMessage["content"], additional_kwargs: m.additional_kwargs, response_metadata: m.response_metadata }) : m;
}

export function inputSanitizationMiddleware(options: InputSanitizationOptions = {}) {
  const sanitize = createSanitizer([...CONTROL_TAGS, ...(options.extraTags ?? [])], [...CONTROL_MARKERS, ...(options.extraMarkers ?? [])]);
  const scope = options.scope ?? "all";
  return createMiddleware({
    name: "InputSanitization",
    wrapModelCall: (request, handler) => {
      const stored = (request.state.messages ?? []).filter((m) => HumanMessage.isInstance(m) && m.id && !isHarnessMessage(m));
      const targets = new Set((scope === "last" ? stored.slice(-1) : stored).map((m) => m.id!));
      if (targets.size === 0) return handler(request);
      let changed = false;
      const messages = request.messages.map((m) => {
        if (!HumanMessage.isInstance(m) || !m.id || !targets.has(m.id) || isHarnessMessage(m)) return m;
        const out = sanitizeMessage(m, sanitize);
        if (out !== m) changed = true;
        return out;
      });
      return changed ? handler({ ...request, messages }) : handler(request);
    },
  });
}
