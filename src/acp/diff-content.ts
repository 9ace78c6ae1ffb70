// An edit's unified diff (the file tools' ApprovalDiff) as ACP `diff` content: the text before and after each hunk,
// which an editor shows in its own diff view. A created file has no old text; a binary edit has no text at all.
import { isAbsolute, join } from "node:path";
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { parsePatch } from "diff";
import type { ApprovalDiff } from "../runtime/events.js";

/** The hunks' old and new text, joined (a gap between hunks shows as "…"). */
function sides(patch: string): { oldText: string; newText: string } {
  const oldParts: string[] = [];
  const newParts: string[] = [];
  for (const file of parsePatch(patch)) {
    for (const hunk of file.hunks) {
      oldParts.push(
        hunk.lines
          .filter((l) => l[0] !== "+" && l[0] !== "\\")
          .map((l) => l.slice(1))
          .join("\n"),
      );
      newParts.push(
        hunk.lines
          .filter((l) => l[0] !== "-" && l[0] !== "\\")
          .map((l) => l.slice(1))
          .join("\n"),
      );
    }
  }
  return { oldText: oldParts.join("\n…\n"), newText: newParts.join("\n…\n") };
}

/**
 * `path`: the edited file's absolute host path when known (from the call's arguments, checked to be inside the
 * workspace); else the diff's own path (relative to the workspace) joined to it.
 */
export function diffContentOf(diff: ApprovalDiff, workspace: string | undefined, path?: string): ToolCallContent[] {
  if (diff.binary) return [];
  const abs = path ?? (isAbsolute(diff.path) || !workspace ? diff.path : join(workspace, diff.path));
  try {
    const { oldText, newText } = sides(diff.patch);
    return [{ type: "diff", path: abs, oldText: diff.created ? null : oldText, newText }];
  } catch {
    // A patch the parser refuses (cut mid-line): the unified text still tells the user what changed.
    return [{ type: "content", content: { type: "text", text: diff.patch } }];
  }
}
