// Colours and status marks shared by every TUI component. Colours are read at call time (getters), so NO_COLOR
// set after import — or toggled in tests — still switches every colour off.

const palette = {
  /** Brand / focus colour: the selection marker, the assistant lead, the spinner. */
  accent: "cyan",
  /** The user's own messages and the input prompt. */
  user: "blue",
  ok: "green",
  error: "red",
  warning: "yellow",
  /** Secondary text that still needs a colour (dim borders use dimColor instead). */
  muted: "gray",
  /** `!` shell commands. */
  shell: "magenta",
  /** The in-progress todo and the plan approval mode. */
  active: "yellow",
} as const;

export type ThemeColor = keyof typeof palette;

/** True when the NO_COLOR convention (https://no-color.org) asks for no colour: set and non-empty. */
export function noColor(): boolean {
  const v = process.env.NO_COLOR;
  return v !== undefined && v !== "";
}

export const theme: { readonly [K in ThemeColor]: string | undefined } = Object.defineProperties(
  {},
  Object.fromEntries((Object.keys(palette) as ThemeColor[]).map((k) => [k, { enumerable: true, get: () => (noColor() ? undefined : palette[k]) }])),
) as { readonly [K in ThemeColor]: string | undefined };

/** Colours of highlight.js scopes in code blocks (undefined: the terminal's own colour). */
const SYNTAX: Record<string, string> = {
  keyword: "magenta",
  built_in: "cyan",
  type: "cyan",
  literal: "yellow",
  number: "yellow",
  symbol: "yellow",
  attr: "yellow",
  attribute: "yellow",
  string: "green",
  regexp: "green",
  addition: "green",
  deletion: "red",
  variable: "red",
  comment: "gray",
  doc: "gray",
  meta: "gray",
  title: "blue",
  section: "blue",
  name: "blue",
  tag: "blue",
  property: "cyan",
};

export function syntaxColor(scope: string | undefined): string | undefined {
  if (!scope || noColor()) return undefined;
  return SYNTAX[scope] ?? SYNTAX[scope.split(/[._]/)[0]!];
}

/** One calm set of marks: circles for todo progress, ✓/✗ for results, braille for anything running. */
export const marks = {
  ok: "✓",
  error: "✗",
  pending: "○",
  inProgress: "◐",
  completed: "●",
  selected: "❯",
  prompt: "❯",
  assistant: "●",
  warning: "!",
  question: "?",
  shell: "!",
  current: "●",
  ellipsis: "…",
} as const;

export const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"] as const;
export const SPINNER_INTERVAL_MS = 80;

/** The spinner frame for a clock value (ms): the App ticks `now`, components stay pure. */
export function spinnerFrame(now: number): string {
  const i = Number.isFinite(now) ? Math.floor(Math.abs(now) / SPINNER_INTERVAL_MS) % SPINNER_FRAMES.length : 0;
  return SPINNER_FRAMES[i]!;
}
