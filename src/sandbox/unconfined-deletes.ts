// Without a sandbox, a delete whose targets the audit cannot place inside the workspace never runs: not even in yolo.
// The block rules in shell-audit.ts name the home directory and the root by their spellings, and the eleventh
// adversarial pass deleted a whole home with spellings no list holds (`${HOME:?}`, `${HOME%/}`, `/ro?t`, `~-`,
// `tar --remove-files ~`, `rm -r -- ~/.*`, `d=~; rm -rf $d`). Under yolo an "ask" is approved, so for the commands
// that destroy files the rule is turned around: the targets must be shown to lie inside the workspace (literal
// words, followed through globs and links by unconfined-paths.ts), or the command is blocked.
//
// Decided:
// - Deletes are rm, rmdir, unlink, shred, find -delete / -exec rm, tar --remove-files, zip -m, rsync --delete /
//   --remove-source-files, git clean, and mv (its sources leave their place). Writes that only add files stay asks.
// - Unknown is refused: a word known only at run time, a tilde, a run from outside the workspace, targets fed by xargs.
//   The user can still run such a command themselves; the agent without a sandbox cannot.
// - With bubblewrap none of this applies: the sandbox bounds what a delete can reach.
import type { SimpleCommand } from "./shell-command.js";
import { findDeletes, tarRemovesFiles, zipMoves } from "./shell-rules-io.js";
import { type ThreadFolders, leavesWorkspaceByLinks } from "./unconfined-paths.js";

const DELETES = /^(?:rm|rmdir|unlink|shred|mv)$/;

/** The command destroys or moves away files named by its words (or, for git clean and find, below its folder). */
export function destroysFiles(c: SimpleCommand): boolean {
  if (DELETES.test(c.name)) return true;
  if (c.name === "find") return findDeletes(c);
  if (c.name === "rsync") return c.args.some((a) => /^--(?:delete|del$|remove-source-files)/.test(a));
  if (c.name === "git") return c.args.includes("clean");
  return tarRemovesFiles(c) || zipMoves(c);
}

export const UNCONFINED_DELETE_REASON = "no sandbox here (bubblewrap is not available): a delete whose targets are not shown to be inside the workspace never runs";

/** Why this command's delete is blocked without a sandbox, or undefined when its targets lie inside `workspace`. */
export function unconfinedDeleteOutside(c: SimpleCommand, workspace: string | undefined, folders?: ThreadFolders): string | undefined {
  if (!destroysFiles(c)) return undefined;
  const why = (detail: string) => `${UNCONFINED_DELETE_REASON} (${detail})`;
  if (c.dynamicName) return why("the program is known only when it runs");
  if (c.via.includes("xargs")) return why("xargs gives it its targets at run time");
  if (c.cwd.at !== "workspace") return why("it runs outside the workspace, or where the audit cannot know");
  if (workspace === undefined) return why("the workspace is not known");
  const link = leavesWorkspaceByLinks(c, workspace, folders);
  return link ? why(link) : undefined;
}
