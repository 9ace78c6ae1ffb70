// Drives the built CLI the way a person does: `node bin/deerflow <args>` in a real pseudo-terminal (node-pty), with
// everything it writes fed into a headless xterm of the same size, so a test asserts on the screen a user sees.
//
//   const tui = usePty();                                  // kills every spawned process after each test
//   const t = tui.spawn(sb, ["chat"]);
//   await waitReady(t);                                    // "Ask anything": the runtime is loaded
//   await submit(t, "hello");                              // keystrokes, each checked on screen, then Enter
//   await t.press("ctrl-t");
//   await t.waitFor(/answer/);                             // on timeout the error shows the current screen
//
// Keys: `type()` writes one character at a time TYPE_DELAY_MS apart (keystrokes, not a paste); `press()` sends named
// keys. A lone Esc is ambiguous for terminal parsers (it also starts every escape sequence): Ink holds a trailing
// "\x1b" and only reports it as Esc when nothing follows in the same read, so `press("esc")` writes it alone and
// then pauses (ESC_PAUSE_MS) before anything else may be written — otherwise a following key would be read as
// Alt+key. All writes go through one queue, so keys never overtake each other.
//
// Keystrokes are never dropped however fast they come (src/tui/use-chat-keys.ts reads refs, not render copies; a
// test types a–z 2 ms apart). `submit()` types a prompt and waits until the input box shows it before Enter.
import pty from "node-pty";
import xterm from "@xterm/headless";
import { afterEach } from "vitest";
import { BIN, type Sandbox } from "./cli.js";

const { Terminal } = xterm;
type XTerm = InstanceType<typeof Terminal>;

export const KEYS = {
  enter: "\r",
  esc: "\x1b",
  up: "\x1b[A",
  down: "\x1b[B",
  left: "\x1b[D",
  right: "\x1b[C",
  tab: "\t",
  "ctrl-c": "\x03",
  "ctrl-d": "\x04",
  "ctrl-t": "\x14",
  "shift-tab": "\x1b[Z",
  "ctrl-o": "\x0f",
  "ctrl-u": "\x15",
  backspace: "\x7f",
} as const;
export type KeyName = keyof typeof KEYS;

/** Pause between typed characters. */
const TYPE_DELAY_MS = 30;
/** Quiet time after a lone Esc so Ink reports it as Esc, not as the start of a sequence or Alt+key. */
const ESC_PAUSE_MS = 120;
const POLL_MS = 40;
/** How long a read waits for an open frame to close before it reads the screen as it is. */
const OPEN_FRAME_WAIT_MS = 10_000;

/** Environment variables that make Ink (and other tools) think they are not at an interactive terminal. */
const CI_VARS = ["CI", "CONTINUOUS_INTEGRATION", "BUILD_NUMBER", "RUN_ID", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "TRAVIS", "TEAMCITY_VERSION"];

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface PtyOptions {
  cols?: number;
  rows?: number;
  /** Defaults to the sandbox's cwd. */
  cwd?: string;
  /** Added to the sandbox's env; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
}

export interface WaitOptions {
  timeoutMs?: number;
  /** "all" (default): scrollback and screen; "screen": only the visible rows. */
  where?: "all" | "screen";
}

export interface PtyExit {
  exitCode: number;
  signal?: number;
}

export interface PtyProcess {
  readonly pid: number;
  readonly cols: number;
  readonly rows: number;
  /** The visible rows joined by "\n", each right-trimmed. */
  screen(): string;
  /** Every buffer line, scrollback included, joined by "\n", each right-trimmed. */
  scrollback(): string;
  /** Everything the process wrote, as received (escape sequences included). */
  raw(): string;
  /**
   * Buffer rows (scrollback included) that continue a line the terminal wrapped because it was wider than the
   * screen. Ink lays out every line to fit, so any row here is a line the app wrote too wide.
   */
  softWrappedRows(): string[];
  /** Resolves once the terminal has parsed everything received so far and is between frames (no half-drawn one). */
  settle(): Promise<void>;
  /** Polls until the text/regex (or predicate over the text) matches; on timeout throws with the current screen. */
  waitFor(what: string | RegExp | ((text: string) => boolean), opts?: WaitOptions): Promise<string>;
  /** Polls until `what` is NOT on the screen any more. */
  waitForGone(what: string | RegExp, opts?: WaitOptions): Promise<void>;
  /** Types `text` one character at a time. */
  type(text: string, delayMs?: number): Promise<void>;
  /** Presses a named key (see KEYS); `esc` waits afterwards so it is read as a lone Esc. */
  press(key: KeyName, times?: number): Promise<void>;
  /** Writes raw bytes at once (a paste, or a sequence not in KEYS). */
  write(data: string): Promise<void>;
  /** Resizes the terminal (the headless one reflows as a terminal does) and the PTY (the process gets SIGWINCH). */
  resize(cols: number, rows: number): Promise<void>;
  readonly exited: Promise<PtyExit>;
  readonly hasExited: boolean;
  /**
   * Ends the process: `signal` (default SIGHUP, as when a terminal window closes), then SIGKILL if it is still there
   * after 2 s. Resolves when it is gone.
   */
  kill(signal?: string): Promise<void>;
  /** Sends a signal and returns at once (see `exited`). */
  signal(sig: string): void;
}

function lines(term: XTerm, from: number, to: number): string[] {
  const buf = term.buffer.active;
  const out: string[] = [];
  for (let y = from; y < to; y++) out.push(buf.getLine(y)?.translateToString(true).trimEnd() ?? "");
  return out;
}

/** The env the TUI runs with: the sandbox's (never the test runner's), a terminal type, and no CI markers. */
export function ptyEnv(sandbox: Sandbox, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = { ...sandbox.env, TERM: "xterm-256color", LANG: "C.UTF-8", ...extra };
  for (const k of CI_VARS) if (!(k in extra)) delete env[k];
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

export function spawnPty(sandbox: Sandbox, args: string[], opts: PtyOptions = {}): PtyProcess {
  const cols = opts.cols ?? 100;
  const rows = opts.rows ?? 32;
  const term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 5000 });
  const proc = pty.spawn(process.execPath, [BIN, ...args], { name: "xterm-256color", cols, rows, cwd: opts.cwd ?? sandbox.cwd, env: ptyEnv(sandbox, opts.env) });
  let received = "";
  let done = false;
  let writes: Promise<void> = Promise.resolve();
  proc.onData((d) => {
    received += d;
    term.write(d);
  });
  const exited = new Promise<PtyExit>((resolve) => {
    proc.onExit(({ exitCode, signal }) => {
      done = true;
      resolve({ exitCode, signal });
    });
  });

  const screen = () => {
    const base = term.buffer.active.baseY;
    return lines(term, base, base + term.rows)
      .join("\n")
      .trimEnd();
  };
  const scrollback = () => lines(term, 0, term.buffer.active.length).join("\n").trimEnd();
  // Ink wraps each frame in synchronized output (DEC mode 2026), and a terminal that supports it shows only whole
  // frames. The PTY hands a frame over in pieces, so a read between them would see a half-erased screen: settling
  // waits for the frame to end too. A frame never closed (the process died, or a bug) is read as it is after
  // OPEN_FRAME_WAIT_MS, so a wait still fails with the screen it saw.
  const settle = async () => {
    for (let waited = 0; waited < OPEN_FRAME_WAIT_MS; waited += POLL_MS) {
      await new Promise<void>((r) => term.write("", r));
      if (!term.modes.synchronizedOutputMode || done) return;
      await sleep(POLL_MS);
    }
  };
  const matches = (what: string | RegExp | ((text: string) => boolean), text: string) => (typeof what === "string" ? text.includes(what) : what instanceof RegExp ? what.test(text) : what(text));
  const describe = (what: unknown) => (typeof what === "function" ? "a condition" : JSON.stringify(String(what)));
  const failure = (msg: string) => new Error(`${msg}${done ? " (the process has exited)" : ""}\n--- screen (${term.cols}x${term.rows}) ---\n${screen()}\n--- end of screen ---`);

  /** Serialises writes, so `press` and `type` calls never interleave. */
  const enqueue = (fn: () => Promise<void>): Promise<void> => {
    const next = writes.then(fn);
    writes = next.catch(() => undefined);
    return next;
  };
  const send = (data: string) => {
    if (!done) proc.write(data);
  };

  const self: PtyProcess = {
    pid: proc.pid,
    get cols() {
      return term.cols;
    },
    get rows() {
      return term.rows;
    },
    screen,
    scrollback,
    raw: () => received,
    softWrappedRows() {
      const buf = term.buffer.active;
      const out: string[] = [];
      for (let y = 0; y < buf.length; y++) {
        const line = buf.getLine(y);
        if (line?.isWrapped) out.push(`${lines(term, y - 1, y)[0]}⏎${line.translateToString(true).trimEnd()}`);
      }
      return out;
    },
    settle,
    async waitFor(what, { timeoutMs = 15_000, where = "all" } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await settle();
        const text = where === "screen" ? screen() : scrollback();
        if (matches(what, text)) return text;
        if (Date.now() > deadline) throw failure(`waitFor(${describe(what)}) timed out after ${timeoutMs} ms`);
        await sleep(POLL_MS);
      }
    },
    async waitForGone(what, { timeoutMs = 15_000, where = "screen" } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await settle();
        if (!matches(what, where === "screen" ? screen() : scrollback())) return;
        if (Date.now() > deadline) throw failure(`waitForGone(${describe(what)}) timed out after ${timeoutMs} ms`);
        await sleep(POLL_MS);
      }
    },
    type: (text, delayMs = TYPE_DELAY_MS) =>
      enqueue(async () => {
        for (const ch of text) {
          send(ch);
          await sleep(delayMs);
        }
      }),
    press: (key, times = 1) =>
      enqueue(async () => {
        for (let i = 0; i < times; i++) {
          send(KEYS[key]);
          await sleep(key === "esc" ? ESC_PAUSE_MS : TYPE_DELAY_MS * 4);
        }
      }),
    write: (data) =>
      enqueue(async () => {
        send(data);
        await sleep(TYPE_DELAY_MS);
      }),
    resize: (newCols, newRows) =>
      enqueue(async () => {
        // The terminal first, as a window does: the program redraws for the size it then reads.
        await new Promise<void>((r) => term.write("", r));
        term.resize(newCols, newRows);
        if (!done) proc.resize(newCols, newRows);
        await sleep(TYPE_DELAY_MS);
      }),
    exited,
    get hasExited() {
      return done;
    },
    signal(sig: string) {
      if (!done) proc.kill(sig);
    },
    async kill(signal = "SIGHUP") {
      for (const sig of [signal, "SIGKILL"]) {
        if (done) return;
        try {
          proc.kill(sig);
        } catch {
          // already gone
        }
        await Promise.race([exited, sleep(2000)]);
      }
    },
  };
  return self;
}

// ---------------------------------------------------------------------------------------------
// The chat screen's fixed parts, as tests read them.

/** The input's placeholder once the runtime is loaded (the first frame shows "Starting…"). */
export const READY_PLACEHOLDER = "Ask anything";

/** Waits until the chat is ready for a prompt (the runtime loaded: ~1–2 s on a slow machine). */
export async function waitReady(p: PtyProcess, timeoutMs = 20_000): Promise<void> {
  await p.waitFor(READY_PLACEHOLDER, { where: "screen", timeoutMs });
}

/** The last non-empty row of the screen: the status line while the chat runs. */
export function statusLine(p: PtyProcess): string {
  return (
    p
      .screen()
      .split("\n")
      .filter((l) => l.trim() !== "")
      .at(-1) ?? ""
  );
}

/** Whether the status line shows thread `id` (in full, or its first 8+ characters when shortened). */
export function statusShowsThread(p: PtyProcess, id: string): boolean {
  return (statusLine(p).match(/\b[0-9a-f]{8,}/g) ?? []).some((tok) => id.startsWith(tok));
}

/** The rows under the input's top rule, status line included (the input box and its hint). */
export function inputArea(p: PtyProcess): string {
  const rows = p.screen().split("\n");
  const rule = rows.map((l) => /^─{10,}$/.test(l)).lastIndexOf(true);
  return rule < 0 ? "" : rows.slice(rule + 1).join("\n");
}

const squash = (s: string) => s.replace(/\s+/g, " ").trim();
/** The first row of the input's completion menu (src/tui/components/CompletionMenu.tsx). */
export const MENU_TOP = /^(?:↑↓ select · tab complete|esc close$)/m;
const HINTS = new Set(["Press Ctrl+C again to exit", "A request is still running: wait for it, or press esc to cancel it."]);

/**
 * The text in the input box, its rows joined with single spaces ("" when it shows its placeholder, which is drawn
 * dim). Reads the rows between the input's top rule and the status line, without the 2-column prompt mark.
 */
export function inputText(p: PtyProcess): string {
  const area = inputArea(p).split("\n").slice(0, -1);
  // A `/` or `@` menu under the input starts with its keys row.
  const menu = area.findIndex((r) => MENU_TOP.test(r));
  const rows = (menu < 0 ? area : area.slice(0, menu)).filter((r) => !HINTS.has(r.trim()));
  const text = squash(rows.map((r) => r.slice(2)).join(" "));
  return /^(?:Ask anything|Starting…|Type your answer…)/.test(text) ? "" : text;
}

/**
 * Types `text` into the input (see `typeEchoed`), then presses Enter once the input shows all of it.
 */
export async function submit(p: PtyProcess, text: string, timeoutMs = 10_000): Promise<void> {
  await typeEchoed(p, text, timeoutMs);
  await p.press("enter");
}

/** Types `text` as keystrokes and waits until the input shows what was there before plus `text`. */
export async function typeEchoed(p: PtyProcess, text: string, timeoutMs = 10_000): Promise<void> {
  const want = squash(inputText(p) + text);
  await p.type(text);
  try {
    await p.waitFor(() => inputText(p) === want, { where: "screen", timeoutMs });
  } catch {
    throw new Error(`the input box does not show what was typed (${JSON.stringify(want)}; it shows ${JSON.stringify(inputText(p))})\n--- screen ---\n${p.screen()}`);
  }
}

/** Spawns PTY processes for the current test file and kills whatever is still running after each test. */
export function usePty(): { spawn: typeof spawnPty } {
  const open: PtyProcess[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.kill()));
  });
  return {
    spawn(sandbox, args, opts) {
      const p = spawnPty(sandbox, args, opts);
      open.push(p);
      return p;
    },
  };
}
