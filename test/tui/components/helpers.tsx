// Shared helpers for the TUI component tests: render into a fixed-width box and read the frame as lines.
import chalk from "chalk";
import { Box } from "ink";
import { render } from "ink-testing-library";
import type { ReactElement } from "react";

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

export function strip(s: string): string {
  return s.replace(ANSI, "");
}

/** Renders `el` inside a box of `width` columns and returns the last frame (ANSI kept) and its plain lines. */
export function frame(el: ReactElement, width = 100): { raw: string; text: string; lines: string[] } {
  const r = render(<Box width={width}>{el}</Box>);
  const raw = r.lastFrame() ?? "";
  r.unmount();
  const text = strip(raw);
  return { raw, text, lines: text === "" ? [] : text.split("\n") };
}

/** Visible width of one plain line (the tests only use narrow characters). */
export function visibleWidth(line: string): number {
  return Array.from(strip(line)).length;
}

/** Runs `fn` with chalk forced to 16 colours (Ink's chalk, hoisted), so styles show up as ANSI codes. */
export function withColor<T>(fn: () => T): T {
  const before = chalk.level;
  chalk.level = 1;
  try {
    return fn();
  } finally {
    chalk.level = before;
  }
}

/** True when the frame holds an ANSI foreground/background colour (not bold/dim/inverse). */
export function hasColorCode(raw: string): boolean {
  return /\u001b\[(?:3[0-79]|4[0-79]|9[0-7]|10[0-7]|38;|48;)[0-9;]*m/.test(raw);
}

export const usage = (total: number) => ({ input_tokens: 0, output_tokens: 0, total_tokens: total });
