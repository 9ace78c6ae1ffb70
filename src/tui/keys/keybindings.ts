// The one keybinding registry: every key the chat reacts to, with the words /help shows for it. Components never
// test raw keys themselves; the App asks `actionFor(input, key)` and dispatches on the action.
import type { Key } from "ink";

export type KeyAction =
  | "submit"
  | "newline"
  | "cancel"
  | "interrupt"
  | "exit"
  | "historyPrev"
  | "historyNext"
  | "toggleTodos"
  | "cycleApproval"
  | "expandTool"
  | "cursorLeft"
  | "cursorRight"
  | "lineStart"
  | "lineEnd"
  | "deleteBack"
  | "deleteWord"
  | "killLine";

export interface KeyBinding {
  action: KeyAction;
  /** How /help writes the key. */
  label: string;
  description: string;
  match: (input: string, key: Key) => boolean;
  /** Editing keys are listed in /help only once, as a group. */
  hidden?: boolean;
}

const ctrl = (letter: string) => (input: string, key: Key) => key.ctrl && input === letter;

export const KEYBINDINGS: readonly KeyBinding[] = [
  // `\` then Enter inserts a newline: the App sees the backslash at the end of the input on submit.
  { action: "submit", label: "enter", description: "send (a trailing \\ inserts a newline instead)", match: (_i, k) => k.return && !k.meta },
  { action: "newline", label: "alt+enter", description: "insert a newline", match: (_i, k) => k.return && k.meta },
  { action: "cancel", label: "esc", description: "close a menu; else take back the last queued message; else cancel the running request (or deny an approval)", match: (_i, k) => k.escape },
  { action: "interrupt", label: "ctrl+c", description: "clear the input; press twice to exit", match: ctrl("c") },
  { action: "exit", label: "ctrl+d", description: "exit (on an empty input)", match: ctrl("d") },
  { action: "historyPrev", label: "↑", description: "previous input (history)", match: (_i, k) => k.upArrow },
  { action: "historyNext", label: "↓", description: "next input (history)", match: (_i, k) => k.downArrow },
  { action: "toggleTodos", label: "ctrl+t", description: "show the full todo list / collapse it; after a run, print its subagents panel", match: ctrl("t") },
  { action: "cycleApproval", label: "shift+tab", description: "cycle the approval mode: ask → auto-edit → plan → yolo", match: (_i, k) => k.tab && k.shift },
  { action: "expandTool", label: "ctrl+o", description: "show the full output of the last tool call", match: ctrl("o") },
  { action: "cursorLeft", label: "←", description: "move the cursor", match: (_i, k) => k.leftArrow, hidden: true },
  { action: "cursorRight", label: "→", description: "move the cursor", match: (_i, k) => k.rightArrow, hidden: true },
  { action: "lineStart", label: "ctrl+a", description: "start of line", match: (i, k) => k.home || (k.ctrl && i === "a"), hidden: true },
  { action: "lineEnd", label: "ctrl+e", description: "end of line", match: (i, k) => k.end || (k.ctrl && i === "e"), hidden: true },
  // Most terminals send DEL (0x7f) for Backspace, which Ink reports as `delete`: both erase backwards.
  { action: "deleteBack", label: "backspace", description: "erase", match: (_i, k) => k.backspace || k.delete, hidden: true },
  { action: "deleteWord", label: "ctrl+w", description: "erase the previous word", match: ctrl("w"), hidden: true },
  { action: "killLine", label: "ctrl+u", description: "erase to the start of the line", match: ctrl("u"), hidden: true },
];

export function actionFor(input: string, key: Key): KeyAction | undefined {
  return KEYBINDINGS.find((b) => b.match(input, key))?.action;
}

/** The keys /help lists. */
export function helpKeys(): { keys: string; description: string }[] {
  return [
    ...KEYBINDINGS.filter((b) => !b.hidden).map((b) => ({ keys: b.label, description: b.description })),
    { keys: "←→ ctrl+a/e ctrl+w/u", description: "edit the input" },
    { keys: "1-9 ↑↓ enter", description: "pick an option in a question or approval" },
  ];
}
