// What `deerflow run` reads from stdin, and how piped material joins the prompt (docs/cli.md, "Piped input").
// `git diff | deerflow run "review this diff"`: the argument is the instruction, stdin the material; the model
// receives the instruction, then the material in a fenced block labelled as piped input. Without an argument stdin
// is the prompt itself, as before. A terminal is never read. Binary input is refused; material too large for the
// model is refused while it is read (reading stops there), with the same bound and error as a long prompt.
import { fstatSync } from "node:fs";
import { Socket } from "node:net";
import type { Readable } from "node:stream";
import { UsageError } from "../errors.js";
import type { ResolvedModel } from "../config/load.js";
import { assertPromptFits, promptTokenBound } from "../runtime/prompt-bound.js";

/**
 * How long a silent stdin that may never end (a socket: a parent process that left its pipe open) is waited for
 * when an argument already gives the prompt; then the run goes on without it, and one line says so.
 */
export const STDIN_SILENCE_MS = 3000;

/** The label line before the fenced material (docs/cli.md names it; the model reads it). */
export const PIPED_LABEL = "Piped input (stdin):";

type Stdin = Readable & { isTTY?: boolean };

/** The prompt of a run, and the part the user typed (where `/skill` and `@path` are looked for). */
export interface RunPrompt {
  prompt: string;
  typed: string;
}

/**
 * Shell pipes and redirected files end on their own, so they are read to the end however slow the producer; a
 * socket (a parent process's pipe: libuv spawns children with socketpairs) may stay open and silent for ever. Node
 * gives a pipe or a socket on fd 0 as a net.Socket; a file is an fs stream, and a stream built in-process ends.
 */
function endsOnItsOwn(stdin: Stdin): boolean {
  if (!(stdin instanceof Socket)) return true;
  try {
    return !fstatSync(0).isSocket();
  } catch {
    return true;
  }
}

/** NUL bytes or invalid UTF-8: not text a model can read. */
function binaryRefusal(what: string): UsageError {
  return new UsageError(
    `The piped input is binary (${what}); deerflow sends text to the model.`,
    "Pipe text (for a diff: git diff --text, or base64 the file), or attach the file with --upload <file>.",
  );
}

function decodeText(bytes: Buffer, material: boolean): string {
  if (material && bytes.includes(0)) throw binaryRefusal("it holds NUL bytes");
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw binaryRefusal("it is not valid UTF-8");
  }
}

function sizeText(bytes: number): string {
  return bytes >= 2 ** 20 ? `${Math.round(bytes / 2 ** 20)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

function delay(ms: number): { done: Promise<"silent">; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<"silent">((resolve) => {
    timer = setTimeout(() => resolve("silent"), ms);
  });
  return { done, clear: () => clearTimeout(timer) };
}

/**
 * Reads stdin as text, or undefined when it is a terminal or stayed silent. `material`: stdin is what an argument's
 * instruction is about (NUL bytes refuse it, and reading stops past the bound); otherwise it is the prompt itself,
 * read whole as before (NUL bytes kept: a prompt may hold one, argv cannot carry it). Bytes that are not UTF-8 are
 * refused either way. `waitMs`: how long a stdin that may never end is waited for (undefined: to its end). `note`
 * gets the one line said while waiting or giving up.
 */
export async function readPipedText(
  stdin: Stdin,
  model: Pick<ResolvedModel, "contextWindow">,
  opts: { material?: boolean; waitMs?: number; note: (line: string) => void },
): Promise<string | undefined> {
  if (stdin.isTTY) return undefined;
  const material = opts.material ?? true;
  // A character holds at most 4 bytes of UTF-8 and a token about 4 characters: past this many bytes the text is
  // over the bound whatever it holds, so reading stops (a 10 GB pipe is not read to be refused).
  const maxBytes = material ? promptTokenBound(model) * 16 : Number.POSITIVE_INFINITY;
  const chunks: Buffer[] = [];
  let size = 0;
  const it = stdin[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  let next = it.next();
  if (opts.waitMs !== undefined) {
    const timer = delay(opts.waitMs);
    const first = await Promise.race([next, timer.done]);
    timer.clear();
    if (first === "silent") {
      if (!endsOnItsOwn(stdin)) {
        // The pending read rejects ("premature close") once the stream is destroyed; nothing waits for it.
        next.catch(() => undefined);
        stdin.destroy();
        opts.note(`stdin is open but sent nothing in ${opts.waitMs / 1000} s; going on without it (close or redirect stdin, e.g. < /dev/null, to skip the wait).`);
        return undefined;
      }
      opts.note("waiting for the piped input on stdin to end (redirect < /dev/null to run without it)…");
    }
  }
  for (let r = await next; !r.done; r = await next) {
    const chunk = typeof r.value === "string" ? Buffer.from(r.value) : r.value;
    if (material && chunk.includes(0)) {
      await it.return?.();
      throw binaryRefusal("it holds NUL bytes");
    }
    chunks.push(chunk);
    size += chunk.length;
    if (size > maxBytes) {
      await it.return?.();
      assertPromptFits(Buffer.concat(chunks).toString("utf8"), model, `The piped input (read up to ${sizeText(maxBytes)}, then no further)`);
    }
    next = it.next();
  }
  return decodeText(Buffer.concat(chunks), material);
}

/** The fence around the material: longer than any run of backticks inside it, so the material cannot close it. */
function fenceFor(material: string): string {
  let longest = 0;
  for (const m of material.matchAll(/`{3,}/g)) longest = Math.max(longest, m[0].length);
  return "`".repeat(Math.max(3, longest + 1));
}

/** The prompt the model receives: the instruction, a blank line, the label, then the material whole in a fence. */
export function withPipedInput(instruction: string, material: string): string {
  const fence = fenceFor(material);
  const body = material.endsWith("\n") ? material : `${material}\n`;
  return `${instruction}\n\n${PIPED_LABEL}\n${fence}\n${body}${fence}`;
}

/** The run's prompt from its argument words and stdin (see the top of this file). */
export async function runPrompt(words: string[], stdin: Stdin, model: Pick<ResolvedModel, "contextWindow">, note: (line: string) => void): Promise<RunPrompt> {
  const instruction = words.join(" ").trim();
  const piped = await readPipedText(stdin, model, { material: instruction !== "", waitMs: words.length > 0 ? STDIN_SILENCE_MS : undefined, note });
  const material = piped?.trim() ? piped : undefined;
  const typed = instruction || (material ?? "").trim();
  const prompt = instruction && material ? withPipedInput(instruction, material) : typed;
  // Bounded before anything is sent (the memory drain before the run calls the model too).
  assertPromptFits(prompt, model, instruction && material ? "The prompt with its piped input" : "The prompt");
  return { prompt, typed };
}
